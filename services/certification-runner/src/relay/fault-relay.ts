import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  MAX_PROVIDER_ANSWER_BYTES,
  type Collection,
  type OutboundExchange,
  type OutboundHttp,
} from '@mmp/platform';
import type { ExchangedMessage } from '@mmp/protocol';
import { exchange } from '../domain/redact.js';

/**
 * What the relay does to a delivery: rewrite the echoed key of the adapter's ack (case 9),
 * answer HTTP 500 after the adapter took the order (case 10), or never answer (case 11).
 */
export type FaultMode = 'rewrite-echo' | 'http-500' | 'withhold';

/** The adapter's answers as the relay saw them, for the case to judge. */
export type AdapterAnswer = { status: number | null; body: unknown };

/**
 * One case's route through the relay, kept in the runner's store: any replica of the runner
 * serves delivery's attempts, whichever replica runs the case.
 */
export type RelayRoute = {
  /** The token in the route's URL. */
  _id: string;
  mode: FaultMode;
  /** The adapter's endpoint: the rail's. */
  endpoint: string;
  exchanges: ExchangedMessage[];
  answers: AdapterAnswer[];
  createdAt: string;
};

const FORWARDED_HEADERS = ['content-type', 'x-service-signature', 'x-service-timestamp', 'x-service-event'];

/** An order is a few hundred bytes; the relay is public, so a larger body is refused unread. */
const MAX_ORDER_BYTES = 64 * 1024;

function readBody(request: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ORDER_BYTES) {
        request.removeAllListeners('data');
        request.resume();
        resolve(null);
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_ORDER_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
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
  routes: Collection<RelayRoute>;
  http: OutboundHttp;
  port: number;
  host: string;
  /** The address delivery reaches the relay at; default http://<host>:<port>. */
  publicUrl?: string;
  timeoutMs: number;
}) {
  const { routes } = options;
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
    const body = await readBody(request);
    if (body === null) {
      response.writeHead(413, { 'content-type': 'application/json' }).end('{"error":"body too large"}');
      return;
    }
    const route = token && request.method === 'POST' ? await routes.findOne({ _id: token }) : null;
    if (!route) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown relay route"}');
      return;
    }
    const { mode, endpoint } = route;
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer: OutboundExchange = await forward(endpoint, headers, body);
    const answerBody = answer.kind === 'response' ? answer.body.toString('utf8') : null;
    const attempt = route.answers.length + 1;
    const adapterSide = exchange(
      `relay → adapter (delivery attempt ${attempt})`,
      { method: 'POST', url: endpoint, headers, body },
      answer.kind === 'response'
        ? { status: answer.status, headers: answer.headers, body: answerBody }
        : null,
      answer.kind === 'response' ? null : `no answer from the adapter: ${answer.kind}`,
    );
    const received = { method: 'POST', url: `${base}/relay/${token}`, headers, body };
    let deliverySide: ExchangedMessage;
    if (mode === 'withhold') {
      withheld.add(response);
      response.on('close', () => withheld.delete(response));
      deliverySide = exchange(
        `delivery → relay (attempt ${attempt})`,
        received,
        null,
        'answer withheld by the fault relay',
      );
    } else {
      const status = mode === 'http-500' ? 500 : answer.kind === 'response' ? answer.status : 502;
      const sent =
        mode === 'http-500'
          ? '{"error":"fault relay: HTTP 500"}'
          : answerBody !== null
            ? rewriteEcho(answerBody)
            : '';
      response.writeHead(status, { 'content-type': 'application/json' }).end(sent);
      deliverySide = exchange(`delivery → relay (attempt ${attempt})`, received, {
        status,
        headers: { 'content-type': 'application/json' },
        body: sent,
      });
    }
    const adapterAnswer: AdapterAnswer = {
      status: answer.kind === 'response' ? answer.status : null,
      body: answerBody === null ? undefined : jsonOf(answerBody),
    };
    await routes.findOneAndUpdate(
      { _id: token },
      { $push: { answers: { $each: [adapterAnswer] }, exchanges: { $each: [adapterSide, deliverySide] } } },
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
    /** A route in front of `endpoint` for one case; its URL is what delivery is given. */
    async open(mode: FaultMode, endpoint: string): Promise<{ token: string; url: string }> {
      const token = randomBytes(16).toString('hex');
      await routes.insertOne({
        _id: token,
        mode,
        endpoint,
        exchanges: [],
        answers: [],
        createdAt: new Date().toISOString(),
      });
      return { token, url: `${base}/relay/${token}` };
    },
    /** What the route saw, then the route is gone: a late attempt finds 404. */
    async close(token: string): Promise<Pick<RelayRoute, 'exchanges' | 'answers'>> {
      const route = await routes.findOne({ _id: token });
      await routes.deleteMany({ _id: token });
      return { exchanges: route?.exchanges ?? [], answers: route?.answers ?? [] };
    },
    async stop() {
      for (const response of withheld) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type FaultRelay = Awaited<ReturnType<typeof startFaultRelay>>;
