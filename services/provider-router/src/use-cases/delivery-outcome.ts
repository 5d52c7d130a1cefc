import type { DeliveryOutcomeData } from '@mmp/protocol';
import { learnOnce, recordFailure, recordSuccess } from '../domain/breaker.js';
import {
  exhaustedCode,
  payerErrorCode,
  type Order,
  type RoutingDecision,
  type RoutingStep,
} from '../domain/order.js';
import {
  executionAcceptedEvent,
  executionFailedEvent,
  orderCreatedEvent,
  paymentEventsOf,
  routingDecidedEvent,
  transferSettledEvents,
} from '../domain/order-events.js';
import { findOrder, moveRoutedOrder } from '../store/orders.js';
import { updateBreaker } from '../store/rails.js';
import { pickRail } from './route-order.js';
import { isoNow, type RouterDeps } from './deps.js';

export type DeliveryOutcome =
  'delivery.accepted' | 'delivery.rejected' | 'delivery.failed' | 'delivery.expired';

function describe(type: DeliveryOutcome, data: DeliveryOutcomeData): string {
  return `${type} on rail ${data.railId}: ${data.classification}${data.reason ? ` (${data.reason})` : ''} after ${data.attempts} attempt(s)`;
}

async function fail(
  deps: RouterDeps,
  order: Order,
  code: string,
  decision: RoutingDecision,
  classification: string,
) {
  const failed = { ...order, status: 'FAILED' as const };
  // Running out of rails is a routing decision too; a payer error or an expiry is not.
  const routing =
    decision.action === 'no_rail'
      ? [routingDecidedEvent(failed, { ...decision, action: decision.action }, null)]
      : [];
  await moveRoutedOrder(
    deps.outbox,
    deps.db,
    order,
    {
      $set: {
        status: 'FAILED',
        failureCode: code,
        lastClassification: classification,
        updatedAt: decision.at,
      },
      $push: { decisions: { $each: [decision] } },
    },
    [
      ...paymentEventsOf(order, [
        ...routing,
        executionFailedEvent(failed, code, decision.reason, decision.at),
      ]),
      ...transferSettledEvents(
        order,
        { status: 'FAILED', failureCode: code, railId: order.railId },
        decision.at,
      ),
    ],
  );
}

/** A delivery failed before acceptance: hand the same order (same key) to the next eligible rail. */
async function failOver(deps: RouterDeps, order: Order, data: DeliveryOutcomeData, why: string, now: string) {
  const choice = await pickRail(deps, order.criteria, order._id, order.triedRailIds);
  const reason = `${why}; ${choice.reason}`;
  if (!choice.rail) {
    const decision: RoutingDecision = {
      at: now,
      railId: null,
      action: 'no_rail',
      reason,
      skipped: choice.skipped,
    };
    await fail(deps, order, exhaustedCode(data.classification), decision, data.classification);
    return;
  }
  const rail = choice.rail;
  const step: RoutingStep = {
    at: now,
    railId: rail._id,
    action: 'failover',
    reason,
    skipped: choice.skipped,
  };
  const moved = { ...order, railId: rail._id, providerId: rail.providerId, transport: rail.transport };
  await moveRoutedOrder(
    deps.outbox,
    deps.db,
    order,
    {
      $set: {
        railId: rail._id,
        providerId: rail.providerId,
        transport: rail.transport,
        lastClassification: data.classification,
        updatedAt: now,
      },
      $push: {
        decisions: { $each: [step] },
        triedRailIds: { $each: [rail._id] },
        ...(order.providerIds.includes(rail.providerId) ? {} : { providerIds: { $each: [rail.providerId] } }),
      },
    },
    [
      ...paymentEventsOf(order, [routingDecidedEvent(moved, step, rail.providerId)]),
      orderCreatedEvent(moved, rail, now),
    ],
  );
}

/**
 * delivery.* from provider-delivery. The breaker learns from every outcome once, by the
 * event's id (a payer's rejection proves the rail works); the order moves only on an outcome
 * of its current rail, by compare-and-set. A redelivery after a crash between the two writes
 * repeats neither.
 */
export async function applyDeliveryOutcome(
  deps: RouterDeps,
  type: DeliveryOutcome,
  data: DeliveryOutcomeData,
  outcomeId: string,
): Promise<void> {
  const order = await findOrder(deps.db, data.orderKey);
  if (!order) {
    deps.log.warn({ orderKey: data.orderKey, type }, 'delivery outcome for an unknown order; ignored');
    return;
  }
  const payerCode = type === 'delivery.rejected' ? payerErrorCode(data.reason) : null;
  const railWorked = type === 'delivery.accepted' || payerCode !== null;
  // Certification provokes failures on purpose (cases 9 to 11): they say nothing of the rail's health.
  if (!order.certification)
    await updateBreaker(deps.db, data.railId, (state) =>
      learnOnce(state, outcomeId, (current) =>
        railWorked ? recordSuccess() : recordFailure(current, deps.now(), deps.config.breaker),
      ),
    );
  if (order.status !== 'ROUTED' || order.railId !== data.railId) {
    deps.log.info(
      { orderKey: order._id, status: order.status, railId: data.railId },
      'stale delivery outcome; order unchanged',
    );
    return;
  }
  const now = isoNow(deps);
  const why = describe(type, data);
  const { classification } = data;
  if (type === 'delivery.accepted') {
    const decision: RoutingDecision = { at: now, railId: data.railId, action: 'accepted', reason: why };
    await moveRoutedOrder(
      deps.outbox,
      deps.db,
      order,
      {
        $set: { status: 'ACCEPTED', lastClassification: classification, updatedAt: now },
        $push: { decisions: { $each: [decision] } },
      },
      paymentEventsOf(order, [executionAcceptedEvent(order, data.railId, why, now)]),
    );
    return;
  }
  const failed = (code: string, reason: string) =>
    fail(deps, order, code, { at: now, railId: data.railId, action: 'failed', reason }, classification);
  if (payerCode) return failed(payerCode, `${why}; payer error, no failover`);
  if (type === 'delivery.expired') return failed('provider_timeout', `${why}; order expired`);
  if (order.certification)
    return failed(exhaustedCode(classification), `${why}; certification order, no failover`);
  await failOver(deps, order, data, why, now);
}
