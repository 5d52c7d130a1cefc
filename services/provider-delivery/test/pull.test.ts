import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '@mmp/platform';
import { createTestBus, createTestSystem, eventually } from '@mmp/platform/testing';
import { pullApi } from '@mmp/protocol';
import { providerDeliveryService } from '../src/service.js';
import { connectBus, type Bus } from './support.js';

const system = createTestSystem('pull');
const env = { ...system.env, ORDER_EXPIRY_INTERVAL_MS: '100' };
let service: RunningService;
let bus: Bus;

beforeAll(async () => {
  service = await startService(providerDeliveryService, env);
  bus = await connectBus(system, new Map());
});
afterAll(async () => {
  await bus?.close();
  await service?.stop();
  await system.cleanup();
});

async function pulledOrder(providerId = 'prv_pull') {
  const data = await bus.publishOrder({ providerId, transport: 'pull', railId: 'rail_pull' });
  await eventually(
    async () =>
      (
        await bus
          .asProvider(providerId)
          .get(data.orderKey)
          .catch(() => null)
      )?.status === 200,
  );
  return data;
}

describe('pull transport: the order state table', () => {
  it('pending → DELIVERED on first fetch, re-deliverable until acked, then acked', async () => {
    const provider = bus.asProvider('prv_pull');
    const data = await pulledOrder();
    expect((await provider.get(data.orderKey)).body).toMatchObject({ status: 'pending', delivery_count: 0 });

    const first = (await provider.pull({ status: 'pending' })).body as { orders: Record<string, unknown>[] };
    const entry = first.orders.find((order) => order.idempotency_key === data.orderKey);
    expect(entry).toEqual({
      idempotency_key: data.orderKey,
      payload: data.payload,
      status: 'DELIVERED',
      created_at: expect.any(String),
      expires_at: data.expiresAt,
      delivery_count: 1,
    });
    const again = (await provider.pull()).body as { orders: Record<string, unknown>[] };
    expect(again.orders.find((order) => order.idempotency_key === data.orderKey)).toMatchObject({
      status: 'DELIVERED',
      delivery_count: 2,
    });

    const ack = { type: 'payment.ack', idempotency_key: data.orderKey, status: 'ACCEPTED' };
    expect(await provider.ack(data.orderKey, ack)).toEqual({ status: 200, body: ack });
    expect((await provider.get(data.orderKey)).body).toMatchObject({ status: 'acked', ack });
    const after = (await provider.pull()).body as { orders: { idempotency_key: string }[] };
    expect(after.orders.map((order) => order.idempotency_key)).not.toContain(data.orderKey);
    await eventually(async () => bus.outcomesOf(data.orderKey).length === 1);
    expect(bus.outcomesOf(data.orderKey)).toEqual([
      expect.objectContaining({
        type: 'delivery.accepted',
        classification: 'ACCEPTED',
        railId: 'rail_pull',
        attempts: 2,
        reason: null,
      }),
    ]);
  });

  it('a pending order can be acked before any fetch; REJECTED carries its reason', async () => {
    const provider = bus.asProvider('prv_pull');
    const data = await pulledOrder();
    const ack = {
      type: 'payment.ack',
      idempotency_key: data.orderKey,
      status: 'REJECTED',
      reason: 'insufficient_balance',
    };
    expect((await provider.ack(data.orderKey, ack)).body).toEqual(ack);
    await eventually(async () => bus.outcomesOf(data.orderKey).length === 1);
    expect(bus.outcomesOf(data.orderKey)[0]).toMatchObject({
      type: 'delivery.rejected',
      reason: 'insufficient_balance',
    });
  });

  it('the same ack again answers the same; a different ack is 409 and changes nothing', async () => {
    const provider = bus.asProvider('prv_pull');
    const data = await pulledOrder();
    const ack = { type: 'payment.ack', idempotency_key: data.orderKey, status: 'ACCEPTED' };
    await provider.ack(data.orderKey, ack);
    expect(await provider.ack(data.orderKey, ack)).toEqual({ status: 200, body: ack });
    await expect(
      provider.ack(data.orderKey, { ...ack, status: 'REJECTED', reason: 'changed my mind' }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'invalid_state',
    });
    expect((await provider.get(data.orderKey)).body).toMatchObject({ status: 'acked', ack });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bus.outcomesOf(data.orderKey)).toHaveLength(1);
  });

  it('an echo that differs from the path is 422 naming idempotency_key; a bad ack body is 422', async () => {
    const provider = bus.asProvider('prv_pull');
    const data = await pulledOrder();
    const ack = { type: 'payment.ack', idempotency_key: 'pexec_other', status: 'ACCEPTED' };
    await expect(provider.ack(data.orderKey, ack)).rejects.toMatchObject({
      status: 422,
      code: 'validation_error',
      fields: [{ field: 'idempotency_key', message: expect.any(String) }],
    });
    await expect(
      provider.ack(data.orderKey, {
        type: 'payment.ack',
        idempotency_key: data.orderKey,
        status: 'OK',
        extra: 1,
      }),
    ).rejects.toMatchObject({
      status: 422,
      code: 'validation_error',
      fields: [expect.objectContaining({ field: 'status' }), expect.objectContaining({ field: 'extra' })],
    });
    await expect(
      provider.ack(data.orderKey, {
        type: 'payout.ack',
        idempotency_key: data.orderKey,
        status: 'ACCEPTED',
      }),
    ).rejects.toMatchObject({
      status: 422,
      fields: [{ field: 'type', message: 'must be payment.ack' }],
    });
    expect((await provider.get(data.orderKey)).body).toMatchObject({ status: 'pending' });
  });

  it('unknown key 404, and a provider never sees another provider’s orders', async () => {
    const data = await pulledOrder('prv_owner');
    const stranger = bus.asProvider('prv_stranger');
    await expect(stranger.get(data.orderKey)).rejects.toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
    await expect(
      stranger.ack(data.orderKey, {
        type: 'payment.ack',
        idempotency_key: data.orderKey,
        status: 'ACCEPTED',
      }),
    ).rejects.toMatchObject({ status: 404 });
    expect((await stranger.pull()).body).toEqual({ orders: [] });
    await expect(bus.asProvider('prv_owner').get('pexec_unknown')).rejects.toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
  });

  it('status other than pending or a limit outside 1..100 is 400 invalid_request; limit caps the batch', async () => {
    const provider = bus.asProvider('prv_limit');
    const queries: Record<string, string>[] = [
      { status: 'acked' },
      { limit: '0' },
      { limit: '101' },
      { limit: 'ten' },
    ];
    for (const query of queries) {
      await expect(provider.pull(query)).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
    }
    await pulledOrder('prv_limit');
    await pulledOrder('prv_limit');
    await pulledOrder('prv_limit');
    expect(((await provider.pull({ limit: '2' })).body as { orders: unknown[] }).orders).toHaveLength(2);
    expect(((await provider.pull()).body as { orders: unknown[] }).orders).toHaveLength(3);
  });

  it('expires an order not pulled or not acked: expired, delivery.expired, then 410 on ack', async () => {
    const provider = bus.asProvider('prv_expiry');
    const notPulled = await bus.publishOrder({
      providerId: 'prv_expiry',
      transport: 'pull',
      expiresAt: new Date(Date.now() + 600).toISOString(),
    });
    const notAcked = await bus.publishOrder({
      providerId: 'prv_expiry',
      transport: 'pull',
      expiresAt: new Date(Date.now() + 600).toISOString(),
    });
    await eventually(async () => (await provider.get(notAcked.orderKey).catch(() => null))?.status === 200);
    await eventually(async () => (await provider.get(notPulled.orderKey).catch(() => null))?.status === 200);
    const pulled = (await provider.pull()).body as { orders: { idempotency_key: string }[] };
    expect(pulled.orders.map((order) => order.idempotency_key)).toContain(notAcked.orderKey);

    for (const data of [notPulled, notAcked]) {
      await eventually(async () => bus.outcomesOf(data.orderKey).length === 1);
      expect(bus.outcomesOf(data.orderKey)[0]).toMatchObject({
        type: 'delivery.expired',
        classification: 'EXPIRED',
      });
      expect((await provider.get(data.orderKey)).body).toMatchObject({ status: 'expired' });
      const ack = { type: 'payment.ack', idempotency_key: data.orderKey, status: 'ACCEPTED' };
      await expect(provider.ack(data.orderKey, ack)).rejects.toMatchObject({
        status: 410,
        code: 'order_expired',
      });
    }
    expect((await provider.pull()).body).toEqual({ orders: [] });

    // What an operator watches: orders ending EXPIRED, and the loop that expires them running.
    const metrics = await (await fetch(`http://127.0.0.1:${service.opsPort}/metrics`)).text();
    expect(metrics).toMatch(
      /^mmp_order_deliveries_total\{outcome="EXPIRED",service="provider-delivery"\} [2-9]/m,
    );
    expect(metrics).toMatch(
      /^mmp_loop_runs_total\{loop="order_expiry",outcome="ok",service="provider-delivery"\} [1-9]/m,
    );
  });

  it('only a provider actor may use the pull operations', async () => {
    const client = createTestBus(bus.nc, system.naming);
    await expect(client.request(pullApi.pull, {}, { actor: { kind: 'public' } })).rejects.toMatchObject({
      status: 403,
    });
  });
});

describe('expiry across a restart', () => {
  it('an order whose expires_at passed while the service was down expires at start', async () => {
    const data = await bus.publishOrder({
      providerId: 'prv_down',
      transport: 'pull',
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    await eventually(
      async () =>
        (
          await bus
            .asProvider('prv_down')
            .get(data.orderKey)
            .catch(() => null)
        )?.status === 200,
    );
    await service.stop();
    await new Promise((resolve) => setTimeout(resolve, 1600));
    service = await startService(providerDeliveryService, env);
    await eventually(async () => bus.outcomesOf(data.orderKey).length === 1);
    expect(bus.outcomesOf(data.orderKey)[0]).toMatchObject({ type: 'delivery.expired' });
  });
});

describe('pull transport: a fetch that waits for its order (wait_ms)', () => {
  type Pulled = { orders: { idempotency_key: string }[] };

  it('answers as soon as an order of the provider arrives', async () => {
    const provider = bus.asProvider('prv_long_poll');
    const started = Date.now();
    const held = provider.pull({ wait_ms: '15000' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const data = await bus.publishOrder({
      providerId: 'prv_long_poll',
      transport: 'pull',
      railId: 'rail_lp',
    });
    const answer = await held;
    expect(answer.status).toBe(200);
    expect((answer.body as Pulled).orders.map((order) => order.idempotency_key)).toEqual([data.orderKey]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('answers an empty list once wait_ms passed without an order, and another provider’s order does not end it', async () => {
    const started = Date.now();
    const held = bus.asProvider('prv_quiet').pull({ wait_ms: '1500' });
    await bus.publishOrder({ providerId: 'prv_busy', transport: 'pull', railId: 'rail_busy' });
    const answer = await held;
    expect((answer.body as Pulled).orders).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
  });

  it('refuses a wait_ms above 20,000 or below 0', async () => {
    for (const wait of ['20001', '-1', 'soon']) {
      await expect(bus.asProvider('prv_quiet').pull({ wait_ms: wait })).rejects.toMatchObject({
        code: 'invalid_request',
        status: 400,
      });
    }
  });

  it('answers a held fetch at once when the service stops, instead of holding its stop', async () => {
    const own = createTestSystem('pullstop');
    const stopping = await startService(providerDeliveryService, own.env);
    const ownBus = await connectBus(own, new Map());
    try {
      const held = ownBus.asProvider('prv_stop').pull({ wait_ms: '15000' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const stoppedAt = Date.now();
      await stopping.stop();
      expect(((await held).body as Pulled).orders).toEqual([]);
      expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    } finally {
      await stopping.stop();
      await ownBus.close();
      await own.cleanup();
    }
  });
});
