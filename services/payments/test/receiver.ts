import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = {
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
  path: string;
};

/**
 * A merchant's webhook endpoint: a real HTTP server that records every request. `respond`
 * decides the status per request, so a test can fail the first attempts.
 */
export async function startReceiver(
  respond: (received: Received, index: number) => number | Promise<number> = () => 200,
) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const entry = {
        headers: req.headers,
        raw,
        body: JSON.parse(raw) as Record<string, unknown>,
        path: req.url ?? '/',
      };
      received.push(entry);
      void Promise.resolve(respond(entry, received.length - 1)).then((status) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The merchant's own verification, written from the specification alone (not the
 * project's signing code): `t=<ts>,v1=<hex>` with HMAC-SHA256 over `<ts>.<raw_body>`.
 */
export function merchantVerifies(
  secret: string,
  header: string | undefined,
  raw: string,
  toleranceSeconds = 300,
): boolean {
  if (!header) return false;
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds)
    return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${raw}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
