import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '@mmp/platform';
import { eventually } from '@mmp/platform/testing';
import { routerQueries, sandboxOperations } from '@mmp/protocol';
import { createPullClient, type OrderAck, type PullClient } from '@mmp/provider-kit';
import type { ChildService } from './support/system.js';
import { useShop } from './support/shop.js';
import { providerBus, type ProviderBus } from './support/provider-bus.js';
import { payOnHostedPage } from './support/shopper.js';
import { failure } from './support/service-errors.js';

/**
 * The order state rows of the pull transport that the sandbox provider meets as a real
 * client, on real payments routed to its rail: the sandbox (its own process) pulls and
 * acks. Where a row needs the sandbox to stop between two steps (fetched but not acked),
 * the test drives the sandbox's own registration (its key, read from its store as its
 * operator could) with the kit's pull client it is built on, rather than a test-only knob
 * in the sandbox: a fetched order is DELIVERED and fetched again until acked, and the
 * sandbox back up acks it; an order fetched but never acked expires (410, the payment
 * fails with provider_timeout); the exact ack repeated is idempotent, a different ack is
 * 409; an order that expired while the sandbox was down (never pulled) answers 410 too.
 */
/** Long enough to fetch an order and restart the sandbox before it expires. */
const ORDER_TTL_SECONDS = 6;
const shop = useShop('Sandbox Pull Shop', {
  external: ['sandbox-provider'],
  env: { ORDER_TTL_SECONDS: String(ORDER_TTL_SECONDS), ORDER_EXPIRY_INTERVAL_MS: '200' },
});
let sandbox: ChildService;
let bus: ProviderBus;

beforeAll(async () => {
  bus = await providerBus(shop.system, 'sandbox-pull-e2e');
  sandbox = await startSandbox();
}, 60_000);

afterAll(async () => {
  await bus?.close();
});

async function startSandbox(): Promise<ChildService> {
  const child = shop.system.spawnService('sandbox-provider');
  await child.waitReady();
  await eventually(
    async () => (await bus.as('gateway').request(sandboxOperations.status, {})).registered,
    20_000,
  );
  return child;
}

/** Runs `steps` with the sandbox process stopped, and starts it again afterwards, whatever happens. */
async function whileSandboxDown<T>(steps: () => Promise<T>): Promise<T> {
  await sandbox.kill('SIGTERM');
  try {
    return await steps();
  } finally {
    sandbox = await startSandbox();
  }
}

/** The sandbox's pull client, with the key it registered with (sealed in its own store). */
async function sandboxClient(): Promise<{ client: PullClient; providerId: string }> {
  const store = await shop.system.openStore('sandbox-provider');
  try {
    const registration = await store
      .collection<{ _id: string; providerId: string; sealedApiKey: string }>('registration')
      .findOne({ _id: 'sandbox' });
    const apiKey = createSecretBox(shop.system.system.env.SERVICE_SECRET_KEY!).open(
      registration!.sealedApiKey,
    );
    return {
      client: createPullClient({ baseUrl: `${shop.system.baseUrl}/v1`, apiKey }),
      providerId: registration!.providerId,
    };
  } finally {
    await store.close();
  }
}

async function pay(phone: string) {
  const { merchant } = shop;
  const created = await merchant<{ id: string; token: string; paymentUrl: string }>('POST', '/v1/payments', {
    amount: 5000,
    currency: 'XAF',
  });
  await payOnHostedPage(shop.system.baseUrl, created.body, phone, 'ORANGE_MONEY');
  const status = async () =>
    (await merchant<{ status: string }>('GET', `/v1/payments/${created.body.token}`)).body.status;
  return { id: created.body.id, status };
}

/** provider-router's order of a payment, once it exists. */
async function orderOf(paymentId: string) {
  return eventually(async () => {
    const { order } = await bus.as('payments').request(routerQueries.orderStatus, { paymentId });
    return order ?? undefined;
  });
}

/**
 * The sandbox's own client and key fetch the order, as its worker does, once it is there:
 * it is DELIVERED, fetched once; nothing acks it.
 */
async function fetchedBySandbox(orderKey: string): Promise<PullClient> {
  const { client } = await sandboxClient();
  const fetched = await eventually(async () =>
    (await client.pending()).find((entry) => entry.idempotency_key === orderKey),
  );
  expect(fetched).toMatchObject({ status: 'DELIVERED', delivery_count: 1 });
  return client;
}

describe('the sandbox provider as the pull client', () => {
  it('an order it fetched is DELIVERED and comes back on every fetch until its ack, which completes the payment', async () => {
    const { payment, orderKey } = await whileSandboxDown(async () => {
      const payment = await pay('+237690000001');
      const { orderKey } = await orderOf(payment.id);
      const client = await fetchedBySandbox(orderKey);
      const read = await client.get(orderKey);
      expect(read).toMatchObject({ status: 'DELIVERED', delivery_count: 1 });
      expect(read).not.toHaveProperty('ack');
      const again = (await client.pending()).find((entry) => entry.idempotency_key === orderKey);
      expect(again).toMatchObject({ status: 'DELIVERED', delivery_count: 2 });
      // Fetched is not accepted: the payment still waits for the provider's answer.
      expect(await payment.status()).toBe('PENDING');
      return { payment, orderKey };
    });
    // Back up, the sandbox fetches it a third time, acks it and settles it.
    await eventually(async () => (await payment.status()) === 'COMPLETED', 20_000);
    const { client } = await sandboxClient();
    expect(await client.get(orderKey)).toMatchObject({
      status: 'acked',
      delivery_count: 3,
      ack: { type: 'payment.ack', idempotency_key: orderKey, status: 'ACCEPTED' },
    });
  });

  it('an order it fetched but never acked expires: the ack answers 410 and the payment fails with provider_timeout', async () => {
    await whileSandboxDown(async () => {
      const payment = await pay('+237690000001');
      const { orderKey } = await orderOf(payment.id);
      const client = await fetchedBySandbox(orderKey);

      await eventually(async () => (await payment.status()) === 'FAILED', 20_000);
      expect(await orderOf(payment.id)).toMatchObject({ status: 'FAILED', failureCode: 'provider_timeout' });
      expect(await client.get(orderKey)).toMatchObject({ status: 'expired', delivery_count: 1 });
      const ack = { type: 'payment.ack' as const, idempotency_key: orderKey, status: 'ACCEPTED' as const };
      expect(await failure(client.ack(ack))).toMatchObject({ status: 410, code: 'order_expired' });
      expect((await client.pending()).map((entry) => entry.idempotency_key)).not.toContain(orderKey);
    });
  });

  it('its ack repeated is idempotent; a different ack after it is 409', async () => {
    // The "no confirmation" number: the sandbox accepts and never settles, so the order stays acked.
    const payment = await pay('+237690000003');
    await eventually(async () => (await payment.status()) === 'PROCESSING', 20_000);
    const { orderKey } = await orderOf(payment.id);
    await whileSandboxDown(async () => {
      const { client } = await sandboxClient();
      const acked = await client.get(orderKey);
      expect(acked).toMatchObject({ idempotency_key: orderKey, status: 'acked' });
      const ack = (acked as { ack: OrderAck }).ack;
      expect(ack).toEqual({ type: 'payment.ack', idempotency_key: orderKey, status: 'ACCEPTED' });

      expect(await client.ack(ack)).toEqual(ack);
      expect(await client.ack(ack)).toEqual(ack);
      expect(
        await failure(client.ack({ ...ack, status: 'REJECTED', reason: 'insufficient_balance' })),
      ).toMatchObject({
        status: 409,
        code: 'invalid_state',
      });
      expect(await client.get(orderKey)).toMatchObject({ status: 'acked', ack });
      expect(await payment.status()).toBe('PROCESSING');
    });
  });

  it('an order that expired while the sandbox was down answers 410, and the payment fails with provider_timeout', async () => {
    await sandbox.kill('SIGTERM');
    const payment = await pay('+237690000001');
    const { orderKey } = await orderOf(payment.id);
    await eventually(async () => (await payment.status()) === 'FAILED', 20_000);
    expect(await orderOf(payment.id)).toMatchObject({ status: 'FAILED', failureCode: 'provider_timeout' });

    const { client } = await sandboxClient();
    expect(await client.get(orderKey)).toMatchObject({ status: 'expired', delivery_count: 0 });
    const ack = { type: 'payment.ack' as const, idempotency_key: orderKey, status: 'ACCEPTED' as const };
    expect(await failure(client.ack(ack))).toMatchObject({ status: 410, code: 'order_expired' });
    expect((await client.pending()).map((entry) => entry.idempotency_key)).not.toContain(orderKey);

    // Back up, the sandbox never sees the expired order, so it never executes it.
    sandbox = await startSandbox();
    await new Promise((resolve) => setTimeout(resolve, 800));
    await sandbox.kill('SIGTERM');
    const store = await shop.system.openStore('sandbox-provider');
    try {
      expect(await store.collection('executions').findOne({ _id: orderKey })).toBeNull();
    } finally {
      await store.close();
    }
  });
});
