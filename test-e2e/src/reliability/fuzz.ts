import { createHmac } from 'node:crypto';
import fc from 'fast-check';

/**
 * Issue 17, item 3: requests no client should send, over every public and provider route
 * the gateway's OpenAPI document lists, as fast-check arbitraries (so a failure shrinks to
 * the smallest request that still fails).
 */
export type Operation = {
  method: string;
  path: string;
  security: Record<string, string[]>[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
};
export type Document = { paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>> };

export type Credentials = {
  secretKey: string;
  publishableKey: string;
  providerKey: string;
  /** Signs provider webhooks (`x-service-signature`, hex HMAC-SHA256 of the exact body). */
  signingSecret: string;
  /** A real id per path parameter name, so some requests reach the handler behind the lookup. */
  ids: Record<string, string>;
};

export type FuzzRequest = {
  operation: Operation;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** For a failure's message: what was sent, short. */
  describe: string;
};

/** The gateway's body limit (BODY_LIMIT_BYTES default, 1 MiB). */
export const BODY_LIMIT = 1024 * 1024;

/** Public routes (merchant, publishable, hosted page) and provider routes; admin routes are the operator's, not the Internet's. */
export function fuzzedOperations(document: Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(methods)) {
      const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
      if (schemes.includes('adminToken') || path.startsWith('/v1/admin')) continue;
      operations.push({
        ...operation,
        method: method.toUpperCase(),
        path,
        security: operation.security ?? [],
      });
    }
  return operations.sort((a, b) => `${a.method} ${a.path}`.localeCompare(`${b.method} ${b.path}`));
}

const oddText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '..',
    '../../etc/passwd',
    '\u0000',
    '\uFEFF',
    '\u202E',
    'e\u0301',
    '💸'.repeat(30),
    '\uD800',
    'null',
    '-1',
    '1e400',
    '__proto__',
    'constructor',
    'a'.repeat(5000),
  ),
);

/** Percent-encoded UTF-8 of any text, lone surrogates included (encodeURIComponent throws on them). */
const pct = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** A path segment: real, odd, raw broken percent-encoding, or very long. */
function segment(real: string | undefined) {
  return fc.oneof(
    { arbitrary: fc.constant(real ?? 'missing'), weight: 2 },
    { arbitrary: oddText.map((text) => pct(text)), weight: 3 },
    {
      arbitrary: fc.constantFrom('%', '%E0%A4%A', '%C0%AF', '%FF%FE', '%2e%2e%2f', ';x=1', '%00'),
      weight: 1,
    },
    { arbitrary: fc.integer({ min: 100, max: 9000 }).map((n) => 'x'.repeat(n)), weight: 1 },
  );
}

const queryKey = fc.oneof(
  fc.constantFrom(
    'limit',
    'starting_after',
    'ending_before',
    'expand[]',
    'status',
    'search',
    'livemode',
    'created[gte]',
    'page',
  ),
  oddText.map((text) => pct(text)),
);
const queryValue = fc.oneof(
  oddText.map((text) => pct(text)),
  fc.constantFrom('-1', '0', '101', '99999999999999999999', 'NaN', '%', '%zz', 'true'),
);
const query = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 6 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

/** Nested arrays and objects, as deep as asked. */
const deep = fc
  .tuple(fc.integer({ min: 10, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
  );

/** Bodies around and past the gateway's limit. */
const sized = fc
  .constantFrom(BODY_LIMIT - 64, BODY_LIMIT - 1, BODY_LIMIT + 1, 2 * BODY_LIMIT, 600 * 1024)
  .map((size) => `{"data":"${'a'.repeat(Math.max(0, size - 11))}"}`);

function bodyText(fields: string[]) {
  const field = fields.length ? fc.oneof(fc.constantFrom(...fields), fc.string()) : fc.string();
  return fc.oneof(
    { arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)), weight: 4 },
    {
      arbitrary: fc.dictionary(field, fc.jsonValue({ maxDepth: 3 })).map((v) => JSON.stringify(v)),
      weight: 4,
    },
    { arbitrary: deep, weight: 1 },
    { arbitrary: sized, weight: 1 },
    { arbitrary: oddText, weight: 1 },
    {
      arbitrary: fc.constantFrom(
        '{"unterminated": ',
        '{"a":1}{"b":2}',
        '{"a":NaN}',
        "{'a':1}",
        '\uFEFF{}',
        '{"__proto__":{"x":1}}',
      ),
      weight: 1,
    },
  );
}

/** Text as UTF-8, or broken: invalid bytes, UTF-16, a cut multi-byte sequence. */
const encoding = fc.constantFrom('utf8', 'utf16le', 'latin1', 'invalid-bytes', 'cut');
function encode(text: string, how: string): Buffer {
  if (how === 'utf16le' || how === 'latin1') return Buffer.from(text, how);
  const utf8 = Buffer.from(text, 'utf8');
  if (how === 'invalid-bytes')
    return Buffer.concat([
      utf8.subarray(0, utf8.length >> 1),
      Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
      utf8.subarray(utf8.length >> 1),
    ]);
  if (how === 'cut') return Buffer.concat([utf8, Buffer.from([0xe2, 0x82])]);
  return utf8;
}

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json, text/plain',
  ';;;',
  '',
  'none',
);

/** Reads, and provider webhooks (whose only valid bodies are signed settlements the fuzzer cannot forge for a real order). */
const readOnly = (operation: Operation) =>
  operation.method === 'GET' || operation.path.startsWith('/v1/provider/webhooks');

type Credential = 'right' | 'none' | 'malformed' | 'other';
const signature = fc.constantFrom('none', 'malformed', 'other-body', 'right', 'sha256=prefixed');

export function requestArbitrary(baseUrl: string, operations: Operation[], credentials: Credentials) {
  return fc
    .record({
      operation: fc.constantFrom(...operations),
      credential: fc.constantFrom<Credential>('right', 'right', 'none', 'malformed', 'other'),
      contentType,
      encoding,
      signature,
      idempotencyKey: fc.option(oddText.map((text) => pct(text).slice(0, 300))),
      query,
      seeds: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
    })
    .chain((shape) => {
      const names = [...shape.operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const fields = Object.keys(
        shape.operation.requestBody?.content?.['application/json']?.schema?.properties ?? {},
      );
      const hasBody = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(shape.operation.method);
      return fc.record({
        shape: fc.constant(shape),
        // Real ids only where a request cannot change them: a fuzzed cancel of a real payment would.
        segments: fc.tuple(
          ...names.map((name) => segment(readOnly(shape.operation) ? credentials.ids[name] : undefined)),
        ),
        body: hasBody ? fc.option(bodyText(fields), { freq: 8 }) : fc.constant(null),
      });
    })
    .map(({ shape, segments, body }): FuzzRequest => {
      const { operation } = shape;
      let index = 0;
      const path = operation.path.replace(/\{[^}]+\}/g, () => segments[index++] ?? 'x');
      const headers: Record<string, string> = {};
      const schemes = operation.security.flatMap((s) => Object.keys(s));
      const right = schemes.includes('providerKey')
        ? credentials.providerKey
        : schemes.includes('publishableKey') && !schemes.includes('secretKey')
          ? credentials.publishableKey
          : credentials.secretKey;
      const other = right === credentials.providerKey ? credentials.secretKey : credentials.providerKey;
      if (shape.credential === 'right' && schemes.length) headers.authorization = `Bearer ${right}`;
      if (shape.credential === 'other') headers.authorization = `Bearer ${other}`;
      if (shape.credential === 'malformed')
        headers.authorization = `Bearer ${right.slice(0, -3)}\u00e9\u00e9`;
      let payload: Buffer | undefined;
      if (body !== null) {
        payload = encode(body, shape.encoding);
        if (shape.contentType !== 'none') headers['content-type'] = shape.contentType;
      }
      if (shape.idempotencyKey !== null) headers['idempotency-key'] = shape.idempotencyKey;
      if (operation.path.startsWith('/v1/provider/webhooks')) {
        const sign = (data: Buffer | string) =>
          createHmac('sha256', credentials.signingSecret).update(data).digest('hex');
        if (shape.signature === 'malformed') headers['x-service-signature'] = 'zz' + sign('x').slice(2, 40);
        if (shape.signature === 'other-body') headers['x-service-signature'] = sign('{"other":true}');
        if (shape.signature === 'right') headers['x-service-signature'] = sign(payload ?? '');
        if (shape.signature === 'sha256=prefixed')
          headers['x-service-signature'] = `sha256=${sign(payload ?? '')}`;
      }
      return {
        operation,
        method: operation.method,
        url: `${baseUrl}${path}${shape.query}`,
        headers,
        body: payload,
        describe: `${operation.method} ${path.slice(0, 120)}${shape.query.slice(0, 80)} headers=${JSON.stringify({ ...headers, authorization: headers.authorization ? shape.credential : undefined })} body(${payload?.length ?? 0})=${JSON.stringify(payload?.subarray(0, 120).toString('utf8'))}`,
      };
    });
}

/** Sends one request; `status` 0 is no answer within the time allowed. */
export async function send(request: FuzzRequest, timeoutMs = 5000) {
  const started = Date.now();
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    return { status: response.status, text, ms: Date.now() - started };
  } catch (error) {
    return { status: 0, text: String(error), ms: Date.now() - started };
  }
}
