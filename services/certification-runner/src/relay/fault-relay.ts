import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_PROVIDER_ANSWER_BYTES, type OutboundExchange, type OutboundHttp } from '@mmp/platform';
import type { ExchangedMessage } from '@mmp/protocol';
import { exchange } from '../domain/redact.js';

/**
 * What the relay does to a delivery: rewrite the echoed key of the adapter's ack (case 9),
 * answer HTTP 500 after the adapter took the order (case 10), or never answer (case 11).
 */
export type FaultMode = 'rewrite-echo' | 'http-500' | 'withhold';

/** The adapter's answers as the relay saw them, for the case to judge. */
export type AdapterAnswer = { status: number | null; body: unknown };

export type FaultRoute = {
  /** The endpoint provider-delivery is given instead of the rail's. */
  url: string;
  exchanges: ExchangedMessage[];
  answers: AdapterAnswer[];
  close(): void;
};

const FORWARDED_HEADERS = ['content-type', 'x-service-signature', 'x-service-timestamp', 'x-service-event'];

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function rewriteEcho(body: string): string {
  const parsed = jsonOf(body);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return body;
  const key = (parsed as Record<string, unknown>).idempotency_key;
  return JSON.stringify({ ...parsed, idempotency_key: `${String(key)}_rewritten_by_relay` });
}

/**
 * The fault relay the runner puts in front of an adapter for cases 9 to 11: provider-delivery
 * delivers a certification order to it with the rail's real secret, timeouts and attempts;
 * it forwards each attempt unchanged to the adapter and then answers delivery as its mode
 * says. Each route lives for one case and records every exchange (secrets redacted).
 */
export async function startFaultRelay(options: {
  http: OutboundHttp;
  port: number;
  host: string;
  /** The address delivery reaches the relay at; default http://<host>:<port>. */
  publicUrl?: string;
  timeoutMs: number;
}) {
  const routes = new Map<string, { mode: FaultMode; endpoint: string; route: FaultRoute }>();
  const withheld = new Set<ServerResponse>();

  async function forward(endpoint: string, headers: Record<string, string>, body: string) {
    return options.http.send({
      url: endpoint,
      method: 'POST',
      headers,
      body,
      timeoutMs: options.timeoutMs,
      maxBodyBytes: MAX_PROVIDER_ANSWER_BYTES,
    });
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const token = (request.url ?? '').split('/').pop() ?? '';
    const entry = routes.get(token);
    const body = await readBody(request);
    if (!entry || request.method !== 'POST') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown relay route"}');
      return;
    }
    const { route, mode, endpoint } = entry;
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const attempt = route.answers.length + 1;
    const answer: OutboundExchange = await forward(endpoint, headers, body);
    const answerBody = answer.kind === 'response' ? answer.body.toString('utf8') : null;
    route.answers.push({
      status: answer.kind === 'response' ? answer.status : null,
      body: answerBody === null ? undefined : jsonOf(answerBody),
    });
    route.exchanges.push(
      exchange(
        `relay → adapter (delivery attempt ${attempt})`,
        { method: 'POST', url: endpoint, headers, body },
        answer.kind === 'response'
          ? { status: answer.status, headers: answer.headers, body: answerBody }
          : null,
        answer.kind === 'response' ? null : `no answer from the adapter: ${answer.kind}`,
      ),
    );
    const received = { method: 'POST', url: route.url, headers, body };
    if (mode === 'withhold') {
      withheld.add(response);
      response.on('close', () => withheld.delete(response));
      route.exchanges.push(
        exchange(
          `delivery → relay (attempt ${attempt})`,
          received,
          null,
          'answer withheld by the fault relay',
        ),
      );
      return;
    }
    const status = mode === 'http-500' ? 500 : answer.kind === 'response' ? answer.status : 502;
    const sent =
      mode === 'http-500'
        ? '{"error":"fault relay: HTTP 500"}'
        : mode === 'rewrite-echo' && answerBody !== null
          ? rewriteEcho(answerBody)
          : (answerBody ?? '');
    response.writeHead(status, { 'content-type': 'application/json' }).end(sent);
    route.exchanges.push(
      exchange(`delivery → relay (attempt ${attempt})`, received, {
        status,
        headers: { 'content-type': 'application/json' },
        body: sent,
      }),
    );
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const { port } = server.address() as AddressInfo;
  const base = (options.publicUrl ?? `http://${options.host}:${port}`).replace(/\/+$/, '');

  return {
    /** A route in front of `endpoint` for one case. */
    open(mode: FaultMode, endpoint: string): FaultRoute {
      const token = randomBytes(16).toString('hex');
      const route: FaultRoute = {
        url: `${base}/relay/${token}`,
        exchanges: [],
        answers: [],
        close: () => void routes.delete(token),
      };
      routes.set(token, { mode, endpoint, route });
      return route;
    },
    async close() {
      for (const response of withheld) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type FaultRelay = Awaited<ReturnType<typeof startFaultRelay>>;
