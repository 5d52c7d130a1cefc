import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerOrders,
  eventually,
  startProviderEndpoint,
  type ProviderEndpoint,
} from '@mmp/platform/testing';
import { deliveryOperations } from '@mmp/protocol';
import { startSystem, type RunningSystem } from '../support/system.js';
import { startOwnProcess, type OwnProcess } from '../support/own-process.js';
import { api } from '../support/http.js';
import { providerBus, type ProviderBus } from '../support/provider-bus.js';
import { payOnHostedPage } from '../support/shopper.js';
import { activeMtnCameroonRail } from '../support/rails.js';

/**
 * Issue 6: provider-delivery runs as its own process and is killed with SIGKILL while an
 * order waits for its second attempt (JetStream holds the retry, not a timer in the dead
 * process), then again after the provider accepted it. The sandbox provider is left out,
 * so the webhook rail of this test is the only rail a sandbox MTN payment can take.
 */
const BACKOFF_MS = 1500;
const deliveryEnv = {
  DELIVERY_TIMEOUT_MS: '1000',
  DELIVERY_BACKOFF_MS: String(BACKOFF_MS),
  ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true',
};

let system: RunningSystem;
let delivery: OwnProcess;
let bus: ProviderBus;
let endpoint: ProviderEndpoint;

/** The provider's endpoint: answers health checks; 503 to an order's first attempt, then ACCEPTED. */
const ordersReceived = (orderKey?: string) => endpoint.orders('/orders', orderKey);

beforeAll(async () => {
  system = await startSystem({ external: ['provider-delivery', 'sandbox-provider'] });
  delivery = await startOwnProcess(system, 'provider-delivery', deliveryEnv);
  endpoint = await startProviderEndpoint();
  endpoint.on('/orders', (call, n) =>
    call.event === 'payment.execute' && ordersReceived(String(call.body.idempotency_key)).length === 1
      ? { status: 503 }
      : answerOrders('ACCEPTED')(call, n),
  );
  bus = await providerBus(system, 'crash-delivery-observer');
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await endpoint?.close();
  await system?.stop();
});

describe('provider-delivery killed with SIGKILL', () => {
  it('in the middle of retries loses no order, and after acceptance delivers it never again', async () => {
    const provider = await system.admin<{ id: string; apiKey: string }>('POST', '/v1/admin/providers', {
      name: 'Crashy Pay',
    });
    await activeMtnCameroonRail(api(system.baseUrl, provider.apiKey), {
      transport: 'webhook',
      endpoint: endpoint.url('/orders'),
    });

    const project = await system.createProject('Delivery Crash Shop');
    const merchant = api(system.baseUrl, project.testSecretKey);
    const created = await merchant<{ token: string; paymentUrl: string }>('POST', '/v1/payments', {
      amount: 5000,
      currency: 'XAF',
    });
    expect(created.status).toBe(201);
    await payOnHostedPage(system.baseUrl, created.body, '+237670000001');

    // Attempt 1 meets a 503; the process dies while the order waits out its backoff.
    const first = await eventually(async () => ordersReceived()[0], 15_000);
    const orderKey = String(first.body.idempotency_key);
    await sleep(200);
    await delivery.kill();
    await sleep(BACKOFF_MS);
    expect(ordersReceived(orderKey)).toHaveLength(1);
    await delivery.start();

    // The restarted process picks the order up from JetStream and sends attempt 2, which is accepted.
    await eventually(async () => ordersReceived(orderKey).length === 2, 15_000);
    await eventually(
      async () =>
        (await merchant<{ status: string }>('GET', `/v1/payments/${created.body.token}`)).body.status ===
        'PROCESSING',
      10_000,
    );
    const accepted = () => bus.outcomesOf(orderKey);
    await eventually(async () => accepted().length === 1);
    expect(accepted()[0]).toMatchObject({ type: 'delivery.accepted', attempts: 2 });

    // Killed and restarted twice more after acceptance: nothing more reaches the provider.
    await delivery.restart();
    await delivery.restart();
    await sleep(BACKOFF_MS * 2);
    expect(ordersReceived(orderKey)).toHaveLength(2);
    expect(ordersReceived()).toHaveLength(2);
    expect(accepted()).toHaveLength(1);
    const record = await bus.as('gateway').request(deliveryOperations.deliveries, { orderKey });
    expect(record.deliveries).toHaveLength(1);
    expect(record.deliveries[0]!.status).toBe('ACKED');
    expect(record.deliveries[0]!.attempts.map((a) => a.classification)).toEqual(['HTTP_ERROR', 'ACCEPTED']);
    expect(
      (await merchant<{ status: string }>('GET', `/v1/payments/${created.body.token}`)).body.status,
    ).toBe('PROCESSING');
  }, 90_000);
});
