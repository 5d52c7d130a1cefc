import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerOrders,
  createTestSystem,
  eventually,
  startProviderEndpoint,
  type ChildService,
  type ProviderEndpoint,
} from '@mmp/platform/testing';
import { connectBus, spawnDelivery, type Bus, type Rail } from './support.js';

/**
 * provider-delivery runs as its own process and is killed with SIGKILL while its POST is
 * out (the endpoint holds the first request open). The attempt was stored as IN_FLIGHT
 * before sending, so the record shows it while nobody knows its answer; the redelivery
 * of the order (after JetStream's ack wait, DELIVERY_TIMEOUT_MS + 20 s) records it as
 * INTERRUPTED and sends the same key again.
 */
const secret = 'whsec_killmidpost0123456789abcdefgh';
const system = createTestSystem('killpost');
const rails = new Map<string, Rail>();
let endpoint: ProviderEndpoint;
let bus: Bus;
let child: ChildService | undefined;

const startDelivery = () =>
  spawnDelivery(system, bus, { DELIVERY_TIMEOUT_MS: '3000', ORDER_EXPIRY_INTERVAL_MS: '200' });

beforeAll(async () => {
  endpoint = await startProviderEndpoint();
  endpoint.on('/hold-first', (call, n) => (n === 1 ? 'silence' : answerOrders('ACCEPTED')(call, n)));
  endpoint.on('/hold-always', () => 'silence');
  rails.set('rail_hold', { endpoint: endpoint.url('/hold-first'), secret });
  rails.set('rail_silent', { endpoint: endpoint.url('/hold-always'), secret });
  bus = await connectBus(system, rails);
});

afterAll(async () => {
  if (child) await child.kill('SIGTERM');
  await bus?.close();
  await endpoint?.close();
  await system.cleanup();
});

describe('provider-delivery killed with SIGKILL during the POST', () => {
  it('leaves the attempt visible as in flight, then records it INTERRUPTED and delivers the same key once more', async () => {
    child = await startDelivery();
    const data = await bus.publishOrder({ railId: 'rail_hold' });
    await eventually(async () => endpoint.callsTo('/hold-first').length === 1, 10_000, 20);
    await child.kill('SIGKILL');
    child = await startDelivery();

    const held = await bus.deliveries(data.orderKey);
    expect(held.deliveries).toMatchObject([
      { status: 'PENDING', attempts: [{ attempt: 1, classification: 'IN_FLIGHT', httpStatus: null }] },
    ]);
    expect(bus.outcomesOf(data.orderKey)).toEqual([]);

    await eventually(async () => bus.outcomesOf(data.orderKey).length === 1, 40_000, 200);
    expect(bus.outcomesOf(data.orderKey)).toEqual([
      expect.objectContaining({ type: 'delivery.accepted', attempts: 2 }),
    ]);
    const requests = endpoint.callsTo('/hold-first');
    expect(requests.map((call) => call.body.idempotency_key)).toEqual([data.orderKey, data.orderKey]);
    const { deliveries } = await bus.deliveries(data.orderKey);
    expect(deliveries).toMatchObject([{ status: 'ACKED', outcome: 'ACCEPTED' }]);
    expect(deliveries[0]!.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        classification: 'INTERRUPTED',
        reason: 'provider-delivery stopped before the answer was recorded',
      }),
      expect.objectContaining({ attempt: 2, classification: 'ACCEPTED', httpStatus: 200 }),
    ]);
  }, 60_000);

  it('an order that expires while its POST was out shows that attempt interrupted, none in flight', async () => {
    child ??= await startDelivery();
    const data = await bus.publishOrder({
      railId: 'rail_silent',
      expiresAt: new Date(Date.now() + 2_000).toISOString(),
    });
    await eventually(async () => endpoint.callsTo('/hold-always').length === 1, 10_000, 20);
    await child.kill('SIGKILL');
    child = await startDelivery();

    await eventually(async () => bus.outcomesOf(data.orderKey).length === 1, 10_000, 100);
    expect(bus.outcomesOf(data.orderKey)).toEqual([expect.objectContaining({ type: 'delivery.expired' })]);
    const { deliveries } = await bus.deliveries(data.orderKey);
    expect(deliveries).toMatchObject([{ status: 'EXPIRED', outcome: 'EXPIRED' }]);
    expect(deliveries[0]!.attempts).toEqual([
      expect.objectContaining({ attempt: 1, classification: 'INTERRUPTED' }),
    ]);
  }, 30_000);
});
