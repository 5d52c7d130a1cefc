import { describe, expect, it } from 'vitest';
import { consumed } from '@mmp/platform/testing';
import { startRouter } from './harness.js';

/**
 * provider-router keeps no list of the events it handled: each handler's writes are guarded
 * (one order per payment, an order moves only from the state and rail an outcome speaks of),
 * so an event that comes again, even under a new id (a re-publish after JetStream's
 * duplicate window), changes nothing more.
 */
const h = await startRouter({ BREAKER_FAILURES: '5', BREAKER_WINDOW_MS: '60000' });
const { nc, naming } = h.running.context;
/** Every event published so far handled by provider-router, and what it emitted seen. */
async function applied() {
  await consumed(nc, naming, 'provider-router');
  for (const observer of ['observer-payments', 'observer-provider-delivery'])
    await consumed(nc, naming, observer);
}

async function railsIn(country: string) {
  const provider = await h.createProvider();
  const first = await h.activeRail(provider.id, { countries: [country], priority: 1 });
  const second = await h.activeRail(provider.id, { countries: [country], priority: 2 });
  return { first, second };
}

describe('events that come again', () => {
  it('accepts an order once, however often its delivery.accepted comes', async () => {
    await railsIn('SN');
    const payment = await h.routed('SN');
    const order = await h.orderOf(payment.id);
    for (let i = 0; i < 3; i += 1) await h.outcome('delivery.accepted', order, 'ACCEPTED');
    await applied();
    expect(h.events('execution.accepted', payment.id)).toHaveLength(1);
    expect((await h.status(payment.id)).order).toMatchObject({
      orderKey: order.orderKey,
      status: 'ACCEPTED',
    });
  });

  it('fails an order over once, however often the failure of its first rail comes', async () => {
    const { first, second } = await railsIn('CG');
    const payment = await h.routed('CG');
    const order = await h.orderOf(payment.id);
    expect(order.railId).toBe(first.id);
    for (let i = 0; i < 3; i += 1) await h.outcome('delivery.failed', order, 'HTTP_ERROR');
    await applied();
    const created = h.events('order.created', payment.id);
    expect(created).toHaveLength(2);
    expect(created[1]!.data).toMatchObject({ orderKey: order.orderKey, railId: second.id });
    expect(h.events('routing.decided', payment.id)).toHaveLength(2);
    expect(h.events('execution.failed', payment.id)).toEqual([]);
  });
});
