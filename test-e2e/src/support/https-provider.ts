import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** One signed call the provider's endpoint received. */
export type ProviderCall = {
  path: string;
  event: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: Record<string, unknown>;
};

export type Answer = { status: number; body?: unknown } | 'silence';
export type Behaviour = (call: ProviderCall) => Answer;

/** The well-behaved provider: health checks echo the nonce, orders are answered with `status`. */
export function answerOrders(status: 'ACCEPTED' | 'REJECTED', reason?: string): Behaviour {
  return (call) =>
    call.event === 'health.check'
      ? { status: 200, body: { type: 'health.ack', nonce: call.body.nonce } }
      : {
          status: 200,
          body: {
            type: 'payment.ack',
            idempotency_key: call.body.idempotency_key,
            status,
            ...(reason ? { reason } : {}),
          },
        };
}

/** Health checks pass; orders get a bare HTTP status (500: a failed delivery, not retried). */
export function failOrders(httpStatus: number): Behaviour {
  return (call) => (call.event === 'health.check' ? answerOrders('ACCEPTED')(call) : { status: httpStatus });
}

/** Checked with node:crypto alone, independently of the service's code. */
export function signedWith(secret: string, call: ProviderCall): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(call.headers['x-service-signature'] ?? ''));
  if (!match || match[1] !== call.headers['x-service-timestamp']) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${call.rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

/**
 * A provider's HTTPS endpoint: one behaviour per path, changeable while the test runs (a
 * rail that recovers), and every call recorded.
 */
export async function startHttpsProvider(tls: { key: Buffer; cert: Buffer }) {
  const behaviours = new Map<string, Behaviour>();
  const calls: ProviderCall[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
    let rawBody = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (rawBody += chunk));
    request.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(rawBody) as Record<string, unknown>;
      } catch {
        // recorded as received; the behaviour decides
      }
      const path = request.url ?? '/';
      const call: ProviderCall = {
        path,
        event: String(request.headers['x-service-event'] ?? ''),
        headers: request.headers,
        rawBody,
        body,
      };
      calls.push(call);
      const answer = behaviours.get(path)?.(call) ?? { status: 404 };
      if (answer === 'silence') {
        hanging.add(response);
        return;
      }
      const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path: string) => `https://127.0.0.1:${port}${path}`,
    on(path: string, behaviour: Behaviour) {
      behaviours.set(path, behaviour);
    },
    calls,
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
export type HttpsProvider = Awaited<ReturnType<typeof startHttpsProvider>>;
