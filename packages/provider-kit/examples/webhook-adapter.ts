/**
 * A provider's adapter for the webhook transport, in one file: a node:http(s) server that
 * verifies each signed call, answers health checks, acks orders at once, "executes" them
 * on its own rail a moment later and pushes the outcome as a signed SettlementEvent.
 *
 *   RAIL_SECRET=whsec_… PROVIDER_ID=prv_… SIGNING_SECRET=… SERVICE_URL=http://127.0.0.1:3000/v1 \
 *   PORT=8443 TLS_CERT=cert.pem TLS_KEY=key.pem \
 *   node --conditions=source --import tsx packages/provider-kit/examples/webhook-adapter.ts
 *
 * Without TLS_CERT/TLS_KEY it serves plain HTTP, which the service only calls on loopback
 * with its development flag; production endpoints are https://.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createServiceCallHandler, pushSettlement, type ExecutionOrder, type OrderDecision } from '../src/index.js';

export type AdapterOptions = {
  railSecret: string;
  providerId: string;
  signingSecret: string;
  serviceUrl: string;
  port?: number;
  tls?: { cert: Buffer; key: Buffer };
  executionDelayMs?: number;
};

export async function startExampleAdapter(options: AdapterOptions) {
  // A real adapter keeps these in its database: a repeated key must find its first decision.
  const decisions = new Map<string, OrderDecision>();

  async function execute(order: ExecutionOrder) {
    const result = await pushSettlement({
      baseUrl: options.serviceUrl,
      providerId: options.providerId,
      signingSecret: options.signingSecret,
      event: {
        protocol_version: '1',
        idempotency_key: order.idempotency_key,
        transaction_ref: order.transaction_ref,
        amount: order.amount,
        currency: order.currency,
        status: 'COMPLETED',
        network: order.network,
        settled_at: new Date().toISOString(),
      },
    });
    console.log(`settlement ${order.idempotency_key}: HTTP ${result.status}`);
  }

  const handle = createServiceCallHandler({
    secret: options.railSecret,
    async onOrder(order) {
      const known = decisions.get(order.idempotency_key);
      if (known) return known;
      const decision: OrderDecision = { status: 'ACCEPTED' };
      decisions.set(order.idempotency_key, decision);
      setTimeout(() => void execute(order).catch((error: unknown) => console.error('settlement push failed', error)), options.executionDelayMs ?? 1000);
      return decision;
    },
  });

  const listener = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // The raw bytes, untouched: the signature covers them, not a re-serialised object.
      handle(Buffer.concat(chunks), request.headers).then(
        (answer) => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body)),
        () => response.writeHead(500).end(),
      );
    });
  };
  const server = options.tls ? createHttpsServer(options.tls, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const required = (name: string) => process.env[name] ?? (console.error(`${name} is required`), process.exit(1));
  const tls = process.env.TLS_CERT && process.env.TLS_KEY ? { cert: readFileSync(process.env.TLS_CERT), key: readFileSync(process.env.TLS_KEY) } : undefined;
  const adapter = await startExampleAdapter({
    railSecret: required('RAIL_SECRET'),
    providerId: required('PROVIDER_ID'),
    signingSecret: required('SIGNING_SECRET'),
    serviceUrl: required('SERVICE_URL'),
    port: Number(process.env.PORT ?? 8443),
    tls,
  });
  console.log(`provider adapter listening on ${adapter.url}`);
}
