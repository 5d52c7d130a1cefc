import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** One signed call a provider's endpoint received (the other side of `postToProvider`). */
export type ReceivedCall = {
  path: string;
  /** `X-Service-Event`: health.check, payment.execute or payout.execute. */
  event: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed, or `{}` when it is not a JSON object. */
  body: Record<string, unknown>;
};

export type EndpointAnswer = { status: number; body?: unknown } | 'silence';
/** What an endpoint does with a call; `n` counts the calls to its path (1-based). */
export type EndpointBehaviour = (call: ReceivedCall, n: number) => EndpointAnswer;

/** Checked with node:crypto alone, independently of the service's own signing code. */
export function signedWith(secret: string, call: ReceivedCall): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(call.headers['x-service-signature'] ?? ''));
  if (!match || match[1] !== call.headers['x-service-timestamp']) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${call.rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

/** The well-behaved provider: health checks echo the nonce, orders are acked with `status`. */
export function answerOrders(
  status: 'ACCEPTED' | 'REJECTED',
  reason?: string,
  tamper: Record<string, unknown> = {},
): EndpointBehaviour {
  return (call) =>
    call.event === 'health.check'
      ? { status: 200, body: { type: 'health.ack', nonce: call.body.nonce } }
      : {
          status: 200,
          body: {
            type: call.body.type === 'payout.execute' ? 'payout.ack' : 'payment.ack',
            idempotency_key: call.body.idempotency_key,
            status,
            ...(reason ? { reason } : {}),
            ...tamper,
          },
        };
}

/** Health checks pass; orders get a bare HTTP status. */
export function failOrders(httpStatus: number): EndpointBehaviour {
  return (call, n) =>
    call.event === 'health.check' ? answerOrders('ACCEPTED')(call, n) : { status: httpStatus };
}

function parsed(rawBody: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(rawBody);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A provider's endpoint for tests, on loopback (HTTPS with `tls`): one behaviour per path,
 * changeable while the test runs (a rail that recovers), every call recorded; a path with
 * no behaviour answers 404, and `silence` holds the call open until `close()`.
 */
export async function startProviderEndpoint(tls?: { key: Buffer; cert: Buffer }) {
  const behaviours = new Map<string, EndpointBehaviour>();
  const calls: ReceivedCall[] = [];
  const hanging = new Set<ServerResponse>();
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    let rawBody = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (rawBody += chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const call: ReceivedCall = {
        path,
        event: String(request.headers['x-service-event'] ?? ''),
        headers: request.headers,
        rawBody,
        body: parsed(rawBody),
      };
      calls.push(call);
      const n = calls.filter((earlier) => earlier.path === path).length;
      const answer = behaviours.get(path)?.(call, n) ?? { status: 404 };
      if (answer === 'silence') return void hanging.add(response);
      const text =
        answer.body === undefined
          ? ''
          : typeof answer.body === 'string'
            ? answer.body
            : JSON.stringify(answer.body);
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    });
  };
  const server = tls
    ? createHttpsServer({ key: tls.key, cert: tls.cert }, handler)
    : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path: string) => `${tls ? 'https' : 'http'}://127.0.0.1:${port}${path}`,
    on(path: string, behaviour: EndpointBehaviour) {
      behaviours.set(path, behaviour);
    },
    calls,
    callsTo: (path: string) => calls.filter((call) => call.path === path),
    /** The payment.execute calls a path received, optionally for one order key only. */
    orders: (path: string, orderKey?: string) =>
      calls.filter(
        (call) =>
          call.path === path &&
          call.event === 'payment.execute' &&
          (orderKey === undefined || call.body.idempotency_key === orderKey),
      ),
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type ProviderEndpoint = Awaited<ReturnType<typeof startProviderEndpoint>>;
