import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '@mmp/platform';
import { createTestSystem, eventually } from '@mmp/platform/testing';
import type { PaymentExecute, PullOrder } from '@mmp/protocol';
import { sandboxProviderService } from '../src/service.js';

/**
 * The gateway's public API as the sandbox uses it, whose order fetch fails twice (a 503, as
 * a restarting gateway answers) before it hands out an order. The sandbox's own interval
 * (SANDBOX_POLL_MS) is far longer than the test: only its short pauses after a failed round
 * let it fetch, ack and settle the order in time.
 */
const order: PaymentExecute = {
  protocol_version: '1',
  type: 'payment.execute',
  idempotency_key: 'pexec_after_failures',
  amount: '5000',
  currency: 'XAF',
  network: 'ORANGE_MONEY',
  country: 'CM',
  payee: { msisdn: '+237690000001' },
  transaction_ref: 'pay_after_failures',
  timestamp: Math.floor(Date.now() / 1000),
};
const state = { failedFetches: 0, acked: false, settlements: [] as unknown[] };
let server: Server;
const system = createTestSystem('sbxretry');

const readBody = async (request: IncomingMessage) => {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return JSON.parse(text) as unknown;
};

beforeAll(async () => {
  server = createServer((request, response) => {
    void (async () => {
      const url = request.url ?? '';
      response.setHeader('content-type', 'application/json');
      if (url.startsWith('/v1/provider/orders?')) {
        if (state.failedFetches < 2) {
          state.failedFetches += 1;
          return void response.writeHead(503).end('{}');
        }
        const entry: PullOrder = {
          idempotency_key: order.idempotency_key,
          payload: order,
          status: 'pending',
          created_at: new Date().toISOString(),
          expires_at: new Date(Date.now() + 15 * 60_000).toISOString(),
          delivery_count: 0,
        };
        return void response.end(JSON.stringify({ orders: state.acked ? [] : [entry] }));
      }
      if (url === `/v1/provider/orders/${order.idempotency_key}/ack`) {
        state.acked = true;
        return void response.end(JSON.stringify(await readBody(request)));
      }
      if (url.startsWith('/v1/provider/webhooks/')) {
        state.settlements.push(await readBody(request));
        return void response.end(JSON.stringify({ received: true }));
      }
      const registration: Record<string, unknown> = {
        '/v1/admin/providers': { id: 'prv_1', apiKey: 'sk_test_sandbox', signingSecret: 'ssec_sandbox' },
        '/v1/provider/rails': { id: 'rail_1' },
      };
      response.end(JSON.stringify(registration[url] ?? { status: 'ACTIVE' }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await system.cleanup();
});

describe('the sandbox after a failed round', () => {
  it('tries again within a fraction of its poll interval, and settles the order', async () => {
    const sandbox = await startService(sandboxProviderService, {
      ...system.env,
      GATEWAY_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      ADMIN_TOKEN: 'adm_0123456789abcdef',
      SANDBOX_POLL_MS: '60000',
      SANDBOX_LISTED_DELAY_MS: '0',
    });
    try {
      await eventually(async () => state.settlements.length > 0, 10_000);
      expect(state.failedFetches).toBe(2);
      expect(state.settlements).toEqual([
        expect.objectContaining({ idempotency_key: order.idempotency_key, status: 'COMPLETED' }),
      ]);
    } finally {
      await sandbox.stop();
    }
  }, 30_000);
});
