/**
 * A provider's adapter for the webhook transport, in one file: a node:http(s) server that
 * verifies each signed call, answers health checks, acks orders at once, "executes" them
 * on its own rail a moment later and pushes the outcome as a signed SettlementEvent.
 *
 *   RAIL_SECRET=whsec_… PROVIDER_ID=prv_… SIGNING_SECRET=ssec_… SERVICE_URL=http://127.0.0.1:3000/v1 \
 *   PORT=8443 TLS_CERT=cert.pem TLS_KEY=key.pem \
 *   node --conditions=source --import tsx packages/provider-kit/examples/webhook-adapter.ts
 *
 * PROVIDER_ID and SIGNING_SECRET come from `mmp provider create`; RAIL_SECRET from `mmp rails
 * create --endpoint http://127.0.0.1:8443/`, so pick the port first (the kit's README walks
 * through it). It logs every call it answers or refuses and every settlement it pushes.
 * Without TLS_CERT/TLS_KEY it serves plain HTTP, which the service only calls on loopback
 * with its development flag ALLOW_HTTP_LOOPBACK_ENDPOINTS=true (`pnpm start` sets it);
 * production endpoints are https://. A self-signed TLS_CERT is trusted by the service when
 * provider-delivery starts with NODE_EXTRA_CA_CERTS=cert.pem.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  createServiceCallHandler,
  settlementOf,
  pushSettlement,
  type ExecutionOrder,
  type HandlerAnswer,
  type OrderDecision,
} from '../src/index.js';

export type AdapterOptions = {
  railSecret: string;
  providerId: string;
  signingSecret: string;
  serviceUrl: string;
  port?: number;
  tls?: { cert: Buffer; key: Buffer };
  executionDelayMs?: number;
  /** Where it says what it did; console.log unless told. */
  log?: (line: string) => void;
};

/** Why a push was refused, from the service's error envelope, for the log line. */
function refusal(body: unknown): string {
  const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
  return error ? `: ${error.code ?? ''} ${error.message ?? ''}`.trimEnd() : '';
}

/** A refusal's reason, with the likely cause of the one everybody meets first. */
function describe(body: HandlerAnswer['body']): string {
  const error = 'error' in body ? body.error : JSON.stringify(body);
  return error === 'signature mismatch'
    ? `${error} (is RAIL_SECRET the whsec_ secret of the rail whose endpoint this is?)`
    : error;
}

export async function startExampleAdapter(options: AdapterOptions) {
  // A real adapter keeps these in its database: a repeated key must find its first decision.
  const decisions = new Map<string, OrderDecision>();
  const log = options.log ?? console.log;

  async function execute(order: ExecutionOrder) {
    const result = await pushSettlement({
      baseUrl: options.serviceUrl,
      providerId: options.providerId,
      signingSecret: options.signingSecret,
      // Certification's failure numbers settle FAILED (case 2); every other order COMPLETED.
      event: settlementOf(order),
    });
    // 200 applied, 409 already received (a retry); anything else names its cause.
    log(`settlement ${order.idempotency_key}: HTTP ${result.status}${refusal(result.body)}`);
  }

  const handle = createServiceCallHandler({
    secret: options.railSecret,
    async onOrder(order) {
      const known = decisions.get(order.idempotency_key);
      if (known) return known;
      const decision: OrderDecision = { status: 'ACCEPTED' };
      decisions.set(order.idempotency_key, decision);
      log(`order ${order.idempotency_key}: ${order.amount} ${order.currency} ${order.network} ACCEPTED`);
      setTimeout(
        () =>
          void execute(order).catch((error: unknown) =>
            log(`settlement ${order.idempotency_key} not sent: ${(error as Error).message}`),
          ),
        options.executionDelayMs ?? 1000,
      );
      return decision;
    },
  });

  const listener = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // The raw bytes, untouched: the signature covers them, not a re-serialised object.
      handle(Buffer.concat(chunks), request.headers).then(
        (answer) => {
          if (answer.status !== 200)
            log(`refused a call with HTTP ${answer.status}: ${describe(answer.body)}`);
          else if ('type' in answer.body && answer.body.type === 'health.ack') log('health.check answered');
          response
            .writeHead(answer.status, { 'content-type': 'application/json' })
            .end(JSON.stringify(answer.body));
        },
        (error: unknown) => {
          log(`failed to answer a call: ${(error as Error).message}`);
          response.writeHead(500).end();
        },
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
  const required = (name: string) =>
    process.env[name] ?? (console.error(`${name} is required`), process.exit(1));
  const tls =
    process.env.TLS_CERT && process.env.TLS_KEY
      ? { cert: readFileSync(process.env.TLS_CERT), key: readFileSync(process.env.TLS_KEY) }
      : undefined;
  const adapter = await startExampleAdapter({
    railSecret: required('RAIL_SECRET'),
    providerId: required('PROVIDER_ID'),
    signingSecret: required('SIGNING_SECRET'),
    serviceUrl: required('SERVICE_URL'),
    port: Number(process.env.PORT ?? 8443),
    tls,
  });
  console.log(`provider adapter listening on ${adapter.url} (its rail's --endpoint)`);
}
