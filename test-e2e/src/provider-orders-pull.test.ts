import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, startService, type RunningService } from '@mmp/platform';
import { createTestBus, createTestSystem, eventually, startTcpProxy } from '@mmp/platform/testing';
import { sandboxOperations } from '@mmp/protocol';
import { createPullClient, paymentAck } from '@mmp/provider-kit';
import { sandboxProviderService } from '@mmp/sandbox-provider';
import { startExampleAdapter } from '@mmp/provider-kit/example';
import { newProvider, webhookRailOnFreePort } from './support/rails.js';
import { startSystem, type RunningSystem } from './support/system.js';
import { api } from './support/http.js';
import { providerBus, type ProviderBus } from './support/provider-bus.js';
import { failure } from './support/service-errors.js';

/**
 * The pull transport over the gateway's real HTTP routes, with @mmp/provider-kit's pull
 * client as the provider, and the sandbox provider as a real pulling adapter that keeps
 * its registration across restarts and never executes a repeated key twice.
 */
let system: RunningSystem;
let bus: ProviderBus;

beforeAll(async () => {
  system = await startSystem();
  bus = await providerBus(system, 'pull-e2e');
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await system?.stop();
});

/** Where a sandbox stands (asked on its own bus, as the gateway asks it). */
function statusOf(sandbox: RunningService) {
  return createTestBus(sandbox.context.nc, sandbox.context.naming).request(sandboxOperations.status, {});
}

/** A sandbox's registration, once it has one. */
async function registered(sandbox: RunningService) {
  const status = await statusOf(sandbox);
  return status.registered ? status : undefined;
}

describe('pull routes over HTTP with the provider kit', () => {
  it('walks the order state table', async () => {
    const provider = await newProvider(system, 'puller');
    const client = createPullClient({ baseUrl: `${system.baseUrl}/v1`, apiKey: provider.apiKey });
    const order = await bus.announceOrder(provider.id);
    const pending = await eventually(
      async () => (await client.get(order.orderKey).catch(() => null)) ?? undefined,
    );
    expect(pending).toMatchObject({ status: 'pending', delivery_count: 0 });

    const [first] = await client.pending();
    expect(first).toMatchObject({
      idempotency_key: order.orderKey,
      payload: order.payload,
      status: 'DELIVERED',
      delivery_count: 1,
    });
    const [again] = await client.pending(10);
    expect(again).toMatchObject({ idempotency_key: order.orderKey, status: 'DELIVERED', delivery_count: 2 });

    const unknownKey = await failure(
      client
        .ack({ ...paymentAck(order.payload as never, 'ACCEPTED'), idempotency_key: 'pexec_other' })
        .then(() => undefined),
    );
    expect(unknownKey).toMatchObject({ status: 404, code: 'resource_not_found' });
    const mismatch = await api(system.baseUrl, provider.apiKey)(
      'POST',
      `/v1/provider/orders/${order.orderKey}/ack`,
      {
        type: 'payment.ack',
        idempotency_key: 'pexec_other',
        status: 'ACCEPTED',
      },
    );
    expect(mismatch.status).toBe(422);
    expect(mismatch.body).toMatchObject({
      error: {
        code: 'validation_error',
        http_status: 422,
        type: 'invalid_request_error',
        errors: [{ field: 'idempotency_key' }],
      },
    });

    const ack = paymentAck({ type: 'payment.execute', idempotency_key: order.orderKey }, 'ACCEPTED');
    expect(await client.ack(ack)).toEqual(ack);
    expect(await client.ack(ack)).toEqual(ack);
    expect(
      await failure(client.ack({ ...ack, status: 'REJECTED', reason: 'insufficient_balance' })),
    ).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(await client.get(order.orderKey)).toMatchObject({ status: 'acked', ack });
    expect((await client.pending()).map((entry) => entry.idempotency_key)).not.toContain(order.orderKey);
    await eventually(async () => bus.outcomesOf(order.orderKey).length === 1);
    expect(bus.outcomesOf(order.orderKey)[0]).toMatchObject({
      type: 'delivery.accepted',
      classification: 'ACCEPTED',
    });

    expect(await failure(client.get('pexec_unknown'))).toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
    const stranger = createPullClient({
      baseUrl: `${system.baseUrl}/v1`,
      apiKey: (await newProvider(system, 'stranger')).apiKey,
    });
    expect(await failure(stranger.get(order.orderKey))).toMatchObject({ status: 404 });
    expect(await stranger.pending()).toEqual([]);
  });

  it('expired orders answer 410; bad queries 400; a missing key 401', async () => {
    const provider = await newProvider(system, 'late');
    const client = createPullClient({ baseUrl: `${system.baseUrl}/v1`, apiKey: provider.apiKey });
    const order = await bus.announceOrder(provider.id, { ttlMs: 300 });
    await eventually(
      async () => bus.outcomesOf(order.orderKey).some((outcome) => outcome.type === 'delivery.expired'),
      15_000,
    );
    expect(await client.get(order.orderKey)).toMatchObject({ status: 'expired' });
    expect(
      await failure(
        client.ack(paymentAck({ type: 'payment.execute', idempotency_key: order.orderKey }, 'ACCEPTED')),
      ),
    ).toMatchObject({
      status: 410,
      code: 'order_expired',
    });
    expect(await failure(client.pending(101))).toMatchObject({ status: 400, code: 'invalid_request' });
    const anonymous = await api(system.baseUrl)('GET', '/v1/provider/orders');
    expect(anonymous.status).toBe(401);
  });
});

describe('the sandbox provider as a real pull client', () => {
  it('keeps its registration across restarts and acks a repeated key without executing it twice', async () => {
    const own = createTestSystem('sbx');
    const dataDir = mkdtempSync(join(tmpdir(), 'mmp-sandbox-'));
    const env = {
      ...own.env,
      DATA_DIR: dataDir,
      GATEWAY_URL: system.baseUrl,
      ADMIN_TOKEN: system.adminToken,
      SANDBOX_POLL_MS: '100',
      SANDBOX_DELAY_MS: '100',
    };
    try {
      const providers = async () =>
        (await system.admin<{ data: { id: string }[] }>('GET', '/v1/admin/providers')).data.length;
      let sandbox = await startService(sandboxProviderService, env);
      const first = await eventually(() => registered(sandbox), 15_000);
      const providersAfterFirst = await providers();
      await sandbox.stop();
      sandbox = await startService(sandboxProviderService, env);
      const second = await eventually(() => registered(sandbox), 15_000);
      expect(second).toEqual(first);
      expect(await providers()).toBe(providersAfterFirst);

      const order = await bus.announceOrder(first.providerId!, { railId: first.railId! });
      await eventually(async () => bus.outcomesOf(order.orderKey).length === 1, 15_000);
      await bus.announceOrder(first.providerId!, { orderKey: order.orderKey, railId: 'rail_failover' });
      await eventually(async () => bus.outcomesOf(order.orderKey).length === 2, 15_000);
      expect(bus.outcomesOf(order.orderKey).map((outcome) => [outcome.type, outcome.railId])).toEqual([
        ['delivery.accepted', first.railId],
        ['delivery.accepted', 'rail_failover'],
      ]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await sandbox.stop();

      const store = await openStore({ dataDir, service: 'sandbox-provider' });
      try {
        const executions = await store.collection('executions').find({});
        expect(executions).toEqual([
          expect.objectContaining({ _id: order.orderKey, status: 'DONE', outcome: 'settled COMPLETED' }),
        ]);
      } finally {
        await store.close();
      }
    } finally {
      await own.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the sandbox provider before the gateway is up', () => {
  it('keeps retrying its registration until the gateway answers', async () => {
    const own = createTestSystem('sbxlate');
    // The gateway "starts" late: a TCP relay to it, refusing connections until restored.
    const relay = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(system.baseUrl).port) });
    relay.cut();
    const sandbox = await startService(sandboxProviderService, {
      ...own.env,
      GATEWAY_URL: `http://127.0.0.1:${relay.port}`,
      ADMIN_TOKEN: system.adminToken,
      SANDBOX_POLL_MS: '100',
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(await statusOf(sandbox)).toEqual({ registered: false });
      relay.restore();
      await eventually(() => registered(sandbox), 20_000);
    } finally {
      await sandbox.stop();
      await relay.close();
      await own.cleanup();
    }
  });
});

describe('a webhook rail served by the provider kit example adapter', () => {
  it('passes its rail test through provider-delivery only once the adapter answers, then takes an order by signed webhook', async () => {
    const provider = await newProvider(system, 'webhooker');
    const { portal } = provider;
    const rail = await webhookRailOnFreePort(portal, {
      networks: ['WAVE'],
      countries: ['SN'],
      currencies: ['XOF'],
    });
    const unanswered = await portal('POST', `/v1/provider/rails/${rail.id}/test`);
    expect(unanswered.body).toMatchObject({ status: 'PENDING', lastTest: { ok: false } });

    const adapter = await startExampleAdapter({
      railSecret: rail.secret,
      providerId: provider.id,
      signingSecret: provider.signingSecret,
      serviceUrl: `${system.baseUrl}/v1`,
      port: rail.port,
      executionDelayMs: 50,
    });
    try {
      const tested = await portal('POST', `/v1/provider/rails/${rail.id}/test`);
      expect(tested.body).toMatchObject({ status: 'TESTED', lastTest: { ok: true, httpStatus: 200 } });
      const order = await bus.announceOrder(provider.id, { railId: rail.id, transport: 'webhook' });
      await eventually(async () => bus.outcomesOf(order.orderKey).length === 1);
      expect(bus.outcomesOf(order.orderKey)[0]).toMatchObject({
        type: 'delivery.accepted',
        railId: rail.id,
        attempts: 1,
      });
      // Let the adapter push its settlement (50 ms later) before the system stops.
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await adapter.close();
    }
  });
});
