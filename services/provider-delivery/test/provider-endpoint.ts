import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export type Received = {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Checked here with node:crypto alone, independently of @mmp/protocol. */
  signatureValid: boolean;
};

/** What an endpoint does with the n-th request it receives (1-based). */
export type Behaviour = (request: Received, n: number) => { status: number; body: string } | 'silence';

function verifyIndependently(secret: string, headers: IncomingMessage['headers'], body: string): boolean {
  const header = String(headers['x-service-signature'] ?? '');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match || match[1] !== headers['x-service-timestamp']) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

/** A provider's endpoint: one behaviour per path, every request recorded. */
export async function startProviderEndpoint(options: {
  secret: string;
  tls?: { key: Buffer; cert: Buffer };
  behaviours: Record<string, Behaviour>;
}) {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '/';
      const request: Received = {
        path,
        headers: req.headers,
        body,
        signatureValid: verifyIndependently(options.secret, req.headers, body),
      };
      received.push(request);
      const behaviour = options.behaviours[path];
      const answer = behaviour
        ? behaviour(request, received.filter((r) => r.path === path).length)
        : { status: 404, body: '' };
      if (answer === 'silence') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  };
  const server = options.tls
    ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler)
    : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  return {
    url: (path: string) => `${base}${path}`,
    received,
    requestsTo: (path: string) => received.filter((r) => r.path === path),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers every order with an ack built from its own body (the well-behaved provider). */
export function ackWith(
  status: 'ACCEPTED' | 'REJECTED',
  reason?: string,
  tamper: Record<string, unknown> = {},
): Behaviour {
  return (request) => {
    const order = JSON.parse(request.body) as { idempotency_key: string };
    const ack = {
      type: 'payment.ack',
      idempotency_key: order.idempotency_key,
      status,
      ...(reason ? { reason } : {}),
      ...tamper,
    };
    return { status: 200, body: JSON.stringify(ack) };
  };
}

export function healthAck(tamperNonce = false): Behaviour {
  return (request) => {
    const check = JSON.parse(request.body) as { nonce: string };
    return {
      status: 200,
      body: JSON.stringify({ type: 'health.ack', nonce: tamperNonce ? 'ffff' : check.nonce }),
    };
  };
}
