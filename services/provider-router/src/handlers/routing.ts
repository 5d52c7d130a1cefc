import {
  newEventId,
  newPaymentOrderKey,
  type PaymentInitiatedData,
  type RoutingDecisionData,
} from '@mmp/protocol';
import { DuplicateKeyError, type PendingEvent } from '@mmp/platform';
import { admitsOrder, startTrial } from '../domain/breaker.js';
import { paymentExecuteBody, type Order, type RoutingStep } from '../domain/order.js';
import { chooseRail, environmentOf, type RouteChoice, type RouteCriteria } from '../domain/routing.js';
import type { Rail } from '../domain/rail.js';
import { updateBreaker } from './breakers.js';
import { isoNow, type RouterDeps } from './deps.js';

export function orderEvent(order: Order, type: string, data: unknown, now: string): PendingEvent {
  return {
    id: newEventId(),
    type,
    occurredAt: now,
    projectId: order.projectId,
    livemode: order.livemode,
    data,
  };
}

export function orderCreatedEvent(order: Order, rail: Rail, now: string): PendingEvent {
  return orderEvent(
    order,
    'order.created',
    {
      orderKey: order._id,
      paymentId: order.paymentId,
      railId: rail._id,
      providerId: rail.providerId,
      transport: rail.transport,
      payload: order.payload,
      expiresAt: order.expiresAt,
    },
    now,
  );
}

export function executionFailedEvent(order: Order, code: string, reason: string, now: string): PendingEvent {
  return orderEvent(
    order,
    'execution.failed',
    { paymentId: order.paymentId, orderKey: order._id, railId: order.railId, code, reason },
    now,
  );
}

/**
 * routing.decided: a routing step of the order (first choice, failover, or no rail), with
 * the rails passed over, so payments can put it on the payment's timeline. Published in
 * the same write as the order change it describes.
 */
export function routingDecidedEvent(
  order: Order,
  decision: RoutingStep,
  providerId: string | null,
): PendingEvent {
  const data: RoutingDecisionData = {
    paymentId: order.paymentId,
    orderKey: order._id,
    decision: decision.action,
    railId: decision.railId,
    providerId,
    reason: decision.reason,
    skipped: decision.skipped ?? [],
  };
  return orderEvent(order, 'routing.decided', data, decision.at);
}

/**
 * Chooses a rail for the order and, for a half-open rail, claims its single trial; a trial
 * lost to a concurrent order means choosing again on fresh rails (that rail now shows its
 * trial in flight, and is skipped saying so).
 */
export async function pickRail(
  deps: RouterDeps,
  criteria: RouteCriteria,
  orderKey: string,
  tried: string[],
): Promise<RouteChoice> {
  for (;;) {
    const rails = await deps.db.rails.find({ status: 'ACTIVE', environment: criteria.environment });
    const now = deps.now();
    const choice = chooseRail(rails, criteria, { exclude: tried, now, breaker: deps.config.breaker });
    if (!choice.rail || !choice.halfOpenTrial) return choice;
    const claimed = await updateBreaker(deps, choice.rail._id, (state) =>
      admitsOrder(state, now, deps.config.breaker) ? startTrial(state, orderKey, now) : null,
    );
    if (claimed) return choice;
  }
}

/** payment.initiated: one order per payment; a redelivery or a second initiation reuses it. */
export async function routePayment(deps: RouterDeps, data: PaymentInitiatedData): Promise<void> {
  const { payment, execution } = data;
  if (await deps.db.orders.findOne({ paymentId: payment.id })) {
    deps.log.info({ paymentId: payment.id }, 'payment already has an order; reusing it');
    return;
  }
  const now = isoNow(deps);
  const orderKey = newPaymentOrderKey();
  const criteria: RouteCriteria = {
    environment: environmentOf(payment.livemode),
    network: execution.network,
    currency: payment.currency,
    country: execution.country,
  };
  const choice = await pickRail(deps, criteria, orderKey, []);
  const decision: RoutingStep = {
    at: now,
    railId: choice.rail?._id ?? null,
    action: choice.rail ? 'routed' : 'no_rail',
    reason: choice.reason,
    skipped: choice.skipped,
  };
  const order: Order = {
    _id: orderKey,
    paymentId: payment.id,
    projectId: payment.projectId,
    livemode: payment.livemode,
    amount: payment.amount,
    currency: payment.currency,
    criteria,
    transactionRef: payment.token,
    payload: paymentExecuteBody(orderKey, data, deps.now()),
    status: choice.rail ? 'ROUTED' : 'FAILED',
    railId: choice.rail?._id ?? null,
    providerId: choice.rail?.providerId ?? null,
    transport: choice.rail?.transport ?? null,
    triedRailIds: choice.rail ? [choice.rail._id] : [],
    providerIds: choice.rail ? [choice.rail.providerId] : [],
    lastClassification: null,
    failureCode: choice.rail ? null : 'provider_unavailable',
    decisions: [decision],
    expiresAt: new Date(deps.now() + deps.config.orderTtlSeconds * 1000).toISOString(),
    createdAt: now,
    updatedAt: now,
  };
  const events = [
    routingDecidedEvent(order, decision, order.providerId),
    choice.rail
      ? orderCreatedEvent(order, choice.rail, now)
      : executionFailedEvent(order, 'provider_unavailable', choice.reason, now),
  ];
  try {
    await deps.outbox.insert(deps.db.orders, order, events);
  } catch (error) {
    // A concurrent replica routed the same payment first: its order stands.
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
  deps.log.info(
    { paymentId: payment.id, orderKey, railId: order.railId, reason: choice.reason },
    'payment routed',
  );
}
