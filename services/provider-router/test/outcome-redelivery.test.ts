import { describe, expect, it } from 'vitest';
import { createOutbox, createSecretBox, type Collection, type Doc, type Outbox } from '@mmp/platform';
import { newEventId, type OrderCreatedData } from '@mmp/protocol';
import { applyDeliveryOutcome } from '../src/handlers/outcomes.js';
import type { RouterDeps } from '../src/handlers/deps.js';
import { openRouterDb } from '../src/store/db.js';
import { paymentSnapshot, startRouter } from './harness.js';

const h = await startRouter({ BREAKER_FAILURES: '3', BREAKER_WINDOW_MS: '60000' });

/** provider-router's handlers over the running service's own store, with `outbox` replaceable. */
function routerDeps(outbox: Outbox): RouterDeps {
  const { store, log, services } = h.running.context;
  return {
    db: openRouterDb(store),
    outbox,
    box: createSecretBox('a-test-key-that-seals-nothing-here'),
    services,
    log,
    now: () => Date.now(),
    config: {
      orderTtlSeconds: 600,
      allowHttpLoopback: true,
      probeTimeoutMs: 1000,
      breaker: { threshold: 3, windowMs: 60_000, cooldownMs: 60_000 },
    },
  };
}

describe('a delivery outcome redelivered after a crash', () => {
  it('counts once against the rail breaker, and moves the order once', async () => {
    const provider = await h.createProvider();
    const first = await h.activeRail(provider.id, { countries: ['TD'], priority: 1 });
    await h.activeRail(provider.id, { countries: ['TD'], priority: 2 });
    const payment = paymentSnapshot();
    await h.initiate(payment, { network: 'ORANGE_MONEY', phone: '+237690000001', country: 'TD' });
    const order = (await h.waitFor('order.created', payment.id))[0]!.data as OrderCreatedData;
    expect(order.railId).toBe(first.id);

    const { store, publish, log } = h.running.context;
    const db = openRouterDb(store);
    const outbox = createOutbox({ publish, log, collections: [db.orders] as unknown as Collection<Doc>[] });
    // The process dies after the breaker learned of the failure, before the order moved.
    const crashing: Outbox = {
      ...outbox,
      update: () => Promise.reject(new Error('crashed before the order moved')),
    };
    const outcome = {
      orderKey: order.orderKey,
      paymentId: payment.id,
      railId: first.id,
      classification: 'UNREACHABLE' as const,
      reason: 'ECONNREFUSED',
      attempts: 1,
    };
    const eventId = newEventId();
    await expect(
      applyDeliveryOutcome(routerDeps(crashing), 'delivery.failed', outcome, eventId),
    ).rejects.toThrow('crashed');
    // JetStream redelivers the same event (same id) to the restarted service, twice even.
    await applyDeliveryOutcome(routerDeps(outbox), 'delivery.failed', outcome, eventId);
    await applyDeliveryOutcome(routerDeps(outbox), 'delivery.failed', outcome, eventId);

    const rail = await db.rails.findOne({ _id: first.id });
    expect(rail!.breaker.failures).toHaveLength(1);
    await h.waitFor('order.created', payment.id, 2);
    // The order moved once: routed, then one failover, whatever the redeliveries.
    const moved = await db.orders.findOne({ _id: order.orderKey });
    expect(moved!.decisions.map((decision) => decision.action)).toEqual(['routed', 'failover']);
    expect(moved!.triedRailIds).toHaveLength(2);
  });
});
