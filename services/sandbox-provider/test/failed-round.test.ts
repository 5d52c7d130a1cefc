import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSystem, eventually } from '@mmp/platform/testing';
import {
  REGISTRATION_ANSWERS,
  pendingOrder,
  readJson,
  serveProviderApi,
  startSandbox,
  successOrder,
  type ProviderApi,
} from './provider-api.js';

/**
 * The gateway's public API as the sandbox uses it, whose order fetch fails twice (a 503, as
 * a restarting gateway answers) before it hands out an order. The sandbox's own interval
 * (SANDBOX_POLL_MS) is far longer than the test: only its short pauses after a failed round
 * let it fetch, ack and settle the order in time.
 */
const order = successOrder('after_failures');
const state = { failedFetches: 0, acked: false, settlements: [] as unknown[] };
let api: ProviderApi;
const system = createTestSystem('sbxretry');

beforeAll(async () => {
  api = await serveProviderApi((request, response) => {
    void (async () => {
      const url = request.url ?? '';
      response.setHeader('content-type', 'application/json');
      if (url.startsWith('/v1/provider/orders?')) {
        if (state.failedFetches < 2) {
          state.failedFetches += 1;
          return void response.writeHead(503).end('{}');
        }
        return void response.end(JSON.stringify({ orders: state.acked ? [] : [pendingOrder(order)] }));
      }
      if (url === `/v1/provider/orders/${order.idempotency_key}/ack`) {
        state.acked = true;
        return void response.end(JSON.stringify(await readJson(request)));
      }
      if (url.startsWith('/v1/provider/webhooks/')) {
        state.settlements.push(await readJson(request));
        return void response.end(JSON.stringify({ received: true }));
      }
      response.end(JSON.stringify(REGISTRATION_ANSWERS[url] ?? { status: 'ACTIVE' }));
    })();
  });
});
afterAll(async () => {
  await api.close();
  await system.cleanup();
});

describe('the sandbox after a failed round', () => {
  it('tries again within a fraction of its poll interval, and settles the order', async () => {
    const sandbox = await startSandbox(api, system.env, {
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
