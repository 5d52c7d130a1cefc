import { describe, expect, it } from 'vitest';
import {
  createEventPublisher,
  createOutbox,
  createOutboundHttp,
  createReadCache,
  createSecretBox,
  type Outbox,
} from '@mmp/platform';
import { newEventId, routerEvents } from '@mmp/protocol';
import { applyDeliveryOutcome } from '../src/use-cases/delivery-outcome.js';
import type { RouterDeps } from '../src/use-cases/deps.js';
import { openRouterDb } from '../src/store/db.js';
import { startRouter } from './harness.js';

const h = await startRouter({ BREAKER_FAILURES: '3', BREAKER_WINDOW_MS: '60000' });
const { store, log, nc, naming } = h.running.context;
const db = openRouterDb(store);
const publish = createEventPublisher(nc, naming, {
  service: 'provider-router',
  types: new Set(Object.values(routerEvents).map((event) => event.type)),
});
const outbox = createOutbox({ publish, log, collections: [db.orders] });
const box = createSecretBox('a-test-key-that-seals-nothing-here');
const http = createOutboundHttp({ allowLoopback: true });

/** provider-router's use-cases over the running service's own store, with `outbox` replaceable. */
function routerDeps(writes: Outbox): RouterDeps {
  return {
    db,
    providers: createReadCache({ ttlMs: 0, max: 1 }),
    outbox: writes,
    box,
    http,
    log,
    now: () => Date.now(),
    config: {
      orderTtlSeconds: 600,
      allowLoopback: true,
      railTestTimeoutMs: 1000,
      settlementSkewMs: 300_000,
      breaker: { threshold: 3, windowMs: 60_000, cooldownMs: 60_000 },
    },
  };
}

describe('a delivery outcome redelivered after a crash', () => {
  it('counts once against the rail breaker, and moves the order once', async () => {
    const provider = await h.createProvider();
    const first = await h.activeRail(provider.id, { countries: ['TD'], priority: 1 });
    await h.activeRail(provider.id, { countries: ['TD'], priority: 2 });
    const payment = await h.routed('TD');
    const order = await h.orderOf(payment.id);
    expect(order.railId).toBe(first.id);

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
