import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startService } from '@mmp/platform';
import type { PaymentExecute, PullOrder } from '@mmp/protocol';
import { sandboxProviderService } from '../src/service.js';

// What the tests' stand-ins for the gateway's public API share: the stand-in's server, an
// order as the pull API lists it, a request's JSON body, and a sandbox started against it.

/** A payment.execute for the sandbox's success number, its key and reference named after `name`. */
export function successOrder(name: string): PaymentExecute {
  return {
    protocol_version: '1',
    type: 'payment.execute',
    idempotency_key: `pexec_${name}`,
    amount: '5000',
    currency: 'XAF',
    network: 'ORANGE_MONEY',
    country: 'CM',
    payee: { msisdn: '+237690000001' },
    transaction_ref: `pay_${name}`,
    timestamp: Math.floor(Date.now() / 1000),
  };
}

/** `order` as the pull API lists it before the provider acks it. */
export function pendingOrder(order: PaymentExecute): PullOrder {
  return {
    idempotency_key: order.idempotency_key,
    payload: order,
    status: 'pending',
    created_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 15 * 60_000).toISOString(),
    delivery_count: 0,
  };
}

/** A stand-in request's body, parsed as JSON. */
export async function readJson(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return JSON.parse(text) as unknown;
}

/** The answers of the registration calls: the provider, its pull rail, then ACTIVE for the rest. */
export const REGISTRATION_ANSWERS: Record<string, unknown> = {
  '/v1/admin/providers': { id: 'prv_1', apiKey: 'sk_test_sandbox', signingSecret: 'ssec_sandbox' },
  '/v1/provider/rails': { id: 'rail_1' },
};

export type ProviderApi = { url: string; close: () => Promise<void> };

/** A stand-in for the gateway's public API, served by `answer` on a free loopback port. */
export async function serveProviderApi(answer: RequestListener): Promise<ProviderApi> {
  const server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The sandbox provider, registering through the stand-in `api` on the test system's NATS. */
export function startSandbox(
  api: ProviderApi,
  systemEnv: Record<string, string>,
  env: Record<string, string>,
) {
  return startService(sandboxProviderService, {
    ...systemEnv,
    GATEWAY_URL: api.url,
    ADMIN_TOKEN: 'adm_0123456789abcdef',
    ...env,
  });
}
