import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, openStore, type Store } from '@mmp/platform';
import type { OrderAck, PaymentExecute } from '@mmp/protocol';
import { createPullClient } from '@mmp/provider-kit';
import { workOnce, type WorkerDeps } from '../src/use-cases/worker.js';
import { openSandboxStore, type SandboxStore } from '../src/store/sandbox.js';
import { pendingOrder, readJson, serveProviderApi, successOrder } from './provider-api.js';

/**
 * The gateway's provider API as the sandbox sees it, served for real: pending orders, acks
 * (the first one taken but its answer lost, as a timeout or a dropped connection does), and
 * the settlement webhook.
 */
async function startProviderApi(order: PaymentExecute) {
  const entry = pendingOrder(order);
  const state = { acks: [] as OrderAck[], settlements: [] as unknown[], fetches: [] as string[] };
  const api = await serveProviderApi((request, response) => {
    void (async () => {
      const url = request.url ?? '';
      if (request.method === 'GET' && url.startsWith('/v1/provider/orders?')) {
        state.fetches.push(url);
        const orders = entry.status === 'pending' ? [entry] : [];
        response.setHeader('content-type', 'application/json');
        return response.end(JSON.stringify({ orders }));
      }
      if (request.method === 'POST' && url === `/v1/provider/orders/${order.idempotency_key}/ack`) {
        const ack = (await readJson(request)) as OrderAck;
        state.acks.push(ack);
        entry.status = 'acked';
        // The ack is stored, but the provider never hears so.
        if (state.acks.length === 1) return request.socket.destroy();
        response.setHeader('content-type', 'application/json');
        return response.end(JSON.stringify(ack));
      }
      if (request.method === 'POST' && url.startsWith('/v1/provider/webhooks/')) {
        state.settlements.push(await readJson(request));
        response.setHeader('content-type', 'application/json');
        return response.end(JSON.stringify({ received: true }));
      }
      response.statusCode = 404;
      response.end();
    })();
  });
  return { ...api, state };
}

const order = successOrder('lost_ack');

let dir: string;
let store: Store;
let sandbox: SandboxStore;
let api: Awaited<ReturnType<typeof startProviderApi>>;
let deps: WorkerDeps;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mmp-sandbox-worker-'));
  store = await openStore({ dataDir: dir, service: 'sandbox-provider' });
  sandbox = await openSandboxStore(store);
  api = await startProviderApi(order);
  const baseUrl = api.url;
  deps = {
    executions: sandbox.executions,
    pull: createPullClient({ baseUrl, apiKey: 'sk_test_sandbox' }),
    credentials: {
      providerId: 'prv_sandbox',
      apiKey: 'sk_test_sandbox',
      signingSecret: 's3cret',
      railId: 'rail',
    },
    baseUrl,
    delays: { listedMs: 200, otherMs: 0 },
    log: createLogger({ service: 'sandbox-provider', level: 'silent' }),
  };
});

afterAll(async () => {
  await api?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the sandbox worker', () => {
  it('settles an order whose ack the service took but whose answer was lost', async () => {
    // A round says what failed, so the worker pauses before the next instead of asking again at once.
    expect(await workOnce(deps, { waitMs: 1000, nextSettlementAt: null })).toEqual({
      fetched: 1,
      failures: 1,
      nextSettlementAt: null,
    });
    expect(api.state.fetches[0]).toBe('/v1/provider/orders?status=pending&limit=50&wait_ms=1000');
    // The order is acked on the service's side, so it is no longer pending…
    expect(api.state.acks).toHaveLength(1);
    expect((await sandbox.executions.findOne({ _id: order.idempotency_key }))?.status).toBe('NEW');

    // …and the next rounds ack it again (the same ack) and push its settlement 200 ms later,
    // each round's long poll waiting at most until then.
    let next: Date | null = null;
    for (let round = 0; round < 20 && api.state.settlements.length === 0; round++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ({ nextSettlementAt: next } = await workOnce(deps, { waitMs: 5000, nextSettlementAt: next }));
    }
    const waits = api.state.fetches.map((url) =>
      Number(new URL(url, 'http://x').searchParams.get('wait_ms')),
    );
    expect(waits[1]).toBe(5000);
    expect(waits.length).toBeGreaterThan(2);
    for (const wait of waits.slice(2)) expect(wait).toBeLessThanOrEqual(200);
    expect(api.state.acks).toHaveLength(2);
    expect(api.state.acks[1]).toEqual(api.state.acks[0]);
    expect(api.state.settlements).toEqual([
      expect.objectContaining({ idempotency_key: order.idempotency_key, status: 'COMPLETED' }),
    ]);
    expect(await sandbox.executions.findOne({ _id: order.idempotency_key })).toMatchObject({
      status: 'DONE',
      outcome: 'settled COMPLETED',
    });
  });
});

describe('a round of the sandbox worker', () => {
  it('acks its orders and pushes their settlements side by side, not one at a time', async () => {
    const orders = Array.from({ length: 6 }, (_, i) => ({
      ...order,
      idempotency_key: `pexec_side_${i}`,
      transaction_ref: `pay_side_${i}`,
    }));
    let acking = 0;
    let mostAcksAtOnce = 0;
    const held: (() => void)[] = [];
    const settled: string[] = [];
    // Each ack is answered once all of them are in flight (or after 500 ms, so a worker that
    // sends one at a time still finishes and the assertion, not a timeout, says why).
    const gateway = await serveProviderApi((request, response) => {
      const url = request.url ?? '';
      response.setHeader('content-type', 'application/json');
      if (request.method === 'GET') {
        const pending = orders.map((payload) => ({
          idempotency_key: payload.idempotency_key,
          payload,
          status: 'pending',
          created_at: new Date().toISOString(),
          expires_at: new Date(Date.now() + 60_000).toISOString(),
          delivery_count: 0,
        }));
        return response.end(JSON.stringify({ orders: pending }));
      }
      let text = '';
      request.on('data', (chunk) => (text += String(chunk)));
      request.on('end', () => {
        if (url.endsWith('/ack')) {
          acking += 1;
          mostAcksAtOnce = Math.max(mostAcksAtOnce, acking);
          const answer = () => {
            acking -= 1;
            response.end(text);
          };
          held.push(answer);
          if (held.length === orders.length) held.splice(0).forEach((release) => release());
          else
            setTimeout(() => held.includes(answer) && held.splice(held.indexOf(answer), 1) && answer(), 500);
          return;
        }
        settled.push((JSON.parse(text) as { idempotency_key: string }).idempotency_key);
        response.end(JSON.stringify({ received: true }));
      });
    });
    const baseUrl = gateway.url;
    try {
      await workOnce({
        ...deps,
        pull: createPullClient({ baseUrl, apiKey: 'sk_test_sandbox' }),
        baseUrl,
        delays: { listedMs: 0, otherMs: 0 },
      });
      expect(mostAcksAtOnce).toBe(orders.length);
      expect(settled.sort()).toEqual(orders.map((o) => o.idempotency_key).sort());
    } finally {
      await gateway.close();
    }
  });
});
