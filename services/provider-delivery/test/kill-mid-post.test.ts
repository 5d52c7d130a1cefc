import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOrders, eventually, type ChildService } from '@mmp/platform/testing';
import { spawnDelivery, useProviderEndpoint } from './support.js';

/**
 * provider-delivery runs as its own process and is killed with SIGKILL while its POST is
 * out (the endpoint holds the first request open). The attempt was stored as IN_FLIGHT
 * before sending, so the record shows it while nobody knows its answer; the redelivery
 * of the order (after JetStream's ack wait, DELIVERY_TIMEOUT_MS + 20 s) records it as
 * INTERRUPTED and sends the same key again.
 */
const provider = useProviderEndpoint('killpost', { secret: 'whsec_killmidpost0123456789abcdefgh' });
let child: ChildService | undefined;

const startDelivery = () =>
  spawnDelivery(provider, { DELIVERY_TIMEOUT_MS: '3000', ORDER_EXPIRY_INTERVAL_MS: '200' });

beforeAll(() => {
  provider.rail('rail_hold', '/hold-first', (call, n) =>
    n === 1 ? 'silence' : answerOrders('ACCEPTED')(call, n),
  );
  provider.rail('rail_silent', '/hold-always', () => 'silence');
});

afterAll(async () => {
  if (child) await child.kill('SIGTERM');
});

describe('provider-delivery killed with SIGKILL during the POST', () => {
  it('leaves the attempt visible as in flight, then records it INTERRUPTED and delivers the same key once more', async () => {
    child = await startDelivery();
    const data = await provider.bus.publishOrder({ railId: 'rail_hold' });
    await eventually(async () => provider.endpoint.callsTo('/hold-first').length === 1, 10_000, 20);
    await child.kill('SIGKILL');
    child = await startDelivery();

    const held = await provider.bus.deliveries(data.orderKey);
    expect(held.deliveries).toMatchObject([
      { status: 'PENDING', attempts: [{ attempt: 1, classification: 'IN_FLIGHT', httpStatus: null }] },
    ]);
    expect(provider.bus.outcomesOf(data.orderKey)).toEqual([]);

    await eventually(async () => provider.bus.outcomesOf(data.orderKey).length === 1, 40_000, 200);
    expect(provider.bus.outcomesOf(data.orderKey)).toEqual([
      expect.objectContaining({ type: 'delivery.accepted', attempts: 2 }),
    ]);
    const requests = provider.endpoint.callsTo('/hold-first');
    expect(requests.map((call) => call.body.idempotency_key)).toEqual([data.orderKey, data.orderKey]);
    const { deliveries } = await provider.bus.deliveries(data.orderKey);
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
    const data = await provider.bus.publishOrder({
      railId: 'rail_silent',
      expiresAt: new Date(Date.now() + 2_000).toISOString(),
    });
    await eventually(async () => provider.endpoint.callsTo('/hold-always').length === 1, 10_000, 20);
    await child.kill('SIGKILL');
    child = await startDelivery();

    await eventually(async () => provider.bus.outcomesOf(data.orderKey).length === 1, 10_000, 100);
    expect(provider.bus.outcomesOf(data.orderKey)).toEqual([
      expect.objectContaining({ type: 'delivery.expired' }),
    ]);
    const { deliveries } = await provider.bus.deliveries(data.orderKey);
    expect(deliveries).toMatchObject([{ status: 'EXPIRED', outcome: 'EXPIRED' }]);
    expect(deliveries[0]!.attempts).toEqual([
      expect.objectContaining({ attempt: 1, classification: 'INTERRUPTED' }),
    ]);
  }, 30_000);
});
