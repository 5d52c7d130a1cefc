import { beforeAll, describe, expect, it } from 'vitest';
import { useShop } from './support/shop.js';

/**
 * Every documented route, with its right credentials, fed input no client should send:
 * wrong types in every field, non-objects, absurd ids and queries, deep nesting. Whatever
 * comes in, the answer is a 4xx in the route's documented error form, never a 5xx.
 */
type Schema = { type?: string | string[]; properties?: Record<string, Schema>; $ref?: string };
type Operation = {
  security: Record<string, string[]>[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { content?: { 'application/json': { schema: Schema } } }>;
};
type Document = { paths: Record<string, Record<string, Operation>> };

const shop = useShop('Garbage In');
let providerKey: string;
let document: Document;

beforeAll(async () => {
  providerKey = (
    await shop.system.admin<{ apiKey: string }>('POST', '/v1/admin/providers', { name: 'Garbage Rails' })
  ).apiKey;
  document = (await (await fetch(`${shop.system.baseUrl}/v1/openapi.json`)).json()) as Document;
}, 60_000);

function credentialFor(operation: Operation): string | undefined {
  const schemes = operation.security.flatMap((s) => Object.keys(s));
  if (schemes.includes('secretKey')) return shop.project.testSecretKey;
  if (schemes.includes('providerKey')) return providerKey;
  if (schemes.includes('adminToken')) return shop.system.adminToken;
  return undefined;
}

/** A value of the wrong JSON type for a declared field. */
function wrongFor(schema: Schema | undefined): unknown {
  const type = [schema?.type ?? 'string'].flat()[0];
  switch (type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'twelve';
    case 'boolean':
      return 'yes';
    case 'array':
      return { not: 'an array' };
    default:
      return ['not', 'an', 'object'];
  }
}

function bodiesFor(operation: Operation): string[] {
  const properties = operation.requestBody?.content['application/json'].schema.properties ?? {};
  const wrongTypes = Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, wrongFor(s)]));
  const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
  return [
    JSON.stringify(wrongTypes),
    '{}',
    '[]',
    'null',
    '"text"',
    '{"amount": 1e400, "currency": "\\u0000", "metadata": {"__proto__": {"polluted": true}}}',
    deep,
    '{"unterminated": ',
  ];
}

const ODD_IDS = ['x', '..%2F..%2Fetc', '%00', 'a'.repeat(600), 'pay_' + '%F0%9F%92%B8'.repeat(20)];
const ODD_QUERY = '?limit=abc&page=-1&expand[]=everything&starting_after=%00&status[]=X&livemode=maybe';

async function send(method: string, url: string, credential: string | undefined, body?: string) {
  const response = await fetch(url, {
    method,
    headers: {
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      ...(body === undefined
        ? {}
        : { 'content-type': 'application/json', 'idempotency-key': `bad-${Math.random()}` }),
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, text };
}

describe('bad input on every route', () => {
  it('never answers 5xx, and answers in the route’s documented error form and status', async () => {
    const failures: string[] = [];
    let calls = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const credential = credentialFor(operation);
        const form = operation.responses['400']?.content?.['application/json'].schema.$ref?.split('/').pop();
        const urls = ODD_IDS.map(
          (id) => `${shop.system.baseUrl}${path.replace(/\{[^}]+\}/g, id)}${ODD_QUERY}`,
        );
        if (!path.includes('{')) urls.push(`${shop.system.baseUrl}${path}`);
        const bodies = ['post', 'put', 'patch'].includes(method) ? bodiesFor(operation) : [undefined];
        for (const url of urls) {
          for (const body of bodies) {
            calls += 1;
            const { status, text } = await send(method.toUpperCase(), url, credential, body);
            const where = `${method.toUpperCase()} ${url.slice(shop.system.baseUrl.length, 120)} ${String(body).slice(0, 40)}`;
            if (status >= 500) {
              failures.push(`${where} -> ${status} ${text.slice(0, 200)}`);
              continue;
            }
            if (status < 400) continue;
            // Validation is 400 on merchant, checkout and admin routes; 422 only where documented (provider protocol).
            if (status === 422 && !operation.responses['422']) {
              failures.push(`${where} -> 422 on a route that validates with 400: ${text.slice(0, 120)}`);
            }
            let parsed: Record<string, unknown> | undefined;
            try {
              parsed = JSON.parse(text) as Record<string, unknown>;
            } catch {
              failures.push(`${where} -> ${status} not JSON: ${text.slice(0, 100)}`);
              continue;
            }
            const simple = typeof parsed.statusCode === 'number' && typeof parsed.code === 'string';
            const envelope = typeof parsed.error === 'object' && parsed.error !== null;
            if ((form === 'SimpleError' && !simple) || (form === 'EnvelopeError' && !envelope)) {
              failures.push(`${where} -> ${status} not in ${form} form: ${text.slice(0, 160)}`);
            }
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  }, 240_000);
});
