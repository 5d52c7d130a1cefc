import type { DeliveryOutcomeData } from '@mmp/protocol';
import { learnOnce, recordFailure, recordSuccess } from '../domain/breaker.js';
import {
  exhaustedCode,
  payerErrorCode,
  type Order,
  type RoutingDecision,
  type RoutingStep,
} from '../domain/order.js';
import { updateBreaker } from './breakers.js';
import {
  executionFailedEvent,
  orderCreatedEvent,
  orderEvent,
  pickRail,
  routingDecidedEvent,
} from './routing.js';
import { isoNow, type RouterDeps } from './deps.js';

type OutcomeType = 'delivery.accepted' | 'delivery.rejected' | 'delivery.failed' | 'delivery.expired';

function describe(type: OutcomeType, data: DeliveryOutcomeData): string {
  return `${type} on rail ${data.railId}: ${data.classification}${data.reason ? ` (${data.reason})` : ''} after ${data.attempts} attempt(s)`;
}

/** Compare-and-set from ROUTED on the rail that reported, so stale or repeated outcomes change nothing. */
function routedOn(order: Order) {
  return { _id: order._id, status: 'ROUTED', railId: order.railId };
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
  await deps.outbox.update(
    deps.db.orders,
    routedOn(order),
    {
      $set: {
        status: 'FAILED',
        failureCode: code,
        lastClassification: classification,
        updatedAt: decision.at,
      },
      $push: { decisions: { $each: [decision] } },
    },
    [...routing, executionFailedEvent(failed, code, decision.reason, decision.at)],
  );
}

/** A delivery failed before acceptance: hand the same order (same key) to the next eligible rail. */
async function failOver(deps: RouterDeps, order: Order, data: DeliveryOutcomeData, why: string, now: string) {
  const choice = await pickRail(deps, order.criteria, order._id, order.triedRailIds);
  if (!choice.rail) {
    const code = exhaustedCode(data.classification);
    await fail(
      deps,
      order,
      code,
      {
        at: now,
        railId: null,
        action: 'no_rail',
        reason: `${why}; ${choice.reason}`,
        skipped: choice.skipped,
      },
      data.classification,
    );
    return;
  }
  const rail = choice.rail;
  const decision: RoutingStep = {
    at: now,
    railId: rail._id,
    action: 'failover',
    reason: `${why}; ${choice.reason}`,
    skipped: choice.skipped,
  };
  const moved = { ...order, railId: rail._id, providerId: rail.providerId, transport: rail.transport };
  await deps.outbox.update(
    deps.db.orders,
    routedOn(order),
    {
      $set: {
        railId: rail._id,
        providerId: rail.providerId,
        transport: rail.transport,
        lastClassification: data.classification,
        updatedAt: now,
      },
      $push: {
        decisions: { $each: [decision] },
        triedRailIds: { $each: [rail._id] },
        ...(order.providerIds.includes(rail.providerId) ? {} : { providerIds: { $each: [rail.providerId] } }),
      },
    },
    [routingDecidedEvent(moved, decision, rail.providerId), orderCreatedEvent(moved, rail, now)],
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
  type: OutcomeType,
  data: DeliveryOutcomeData,
  outcomeId: string,
): Promise<void> {
  const order = await deps.db.orders.findOne({ _id: data.orderKey });
  if (!order) {
    deps.log.warn({ orderKey: data.orderKey, type }, 'delivery outcome for an unknown order; ignored');
    return;
  }
  const payerCode = type === 'delivery.rejected' ? payerErrorCode(data.reason) : null;
  const railWorked = type === 'delivery.accepted' || payerCode !== null;
  await updateBreaker(deps, data.railId, (state) =>
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
  if (type === 'delivery.accepted') {
    const decision: RoutingDecision = { at: now, railId: data.railId, action: 'accepted', reason: why };
    const accepted = { ...order, status: 'ACCEPTED' as const };
    await deps.outbox.update(
      deps.db.orders,
      routedOn(order),
      {
        $set: { status: 'ACCEPTED', lastClassification: data.classification, updatedAt: now },
        $push: { decisions: { $each: [decision] } },
      },
      [
        orderEvent(
          accepted,
          'execution.accepted',
          { paymentId: order.paymentId, orderKey: order._id, railId: data.railId, code: null, reason: why },
          now,
        ),
      ],
    );
    return;
  }
  if (payerCode) {
    await fail(
      deps,
      order,
      payerCode,
      { at: now, railId: data.railId, action: 'failed', reason: `${why}; payer error, no failover` },
      data.classification,
    );
    return;
  }
  if (type === 'delivery.expired') {
    await fail(
      deps,
      order,
      'provider_timeout',
      { at: now, railId: data.railId, action: 'failed', reason: `${why}; order expired` },
      data.classification,
    );
    return;
  }
  await failOver(deps, order, data, why, now);
}
