import { newPaymentOrderKey, type PaymentInitiatedData } from '@mmp/protocol';
import { DuplicateKeyError } from '@mmp/platform';
import { admitsOrder, startTrial } from '../domain/breaker.js';
import { paymentExecuteBody, routedOrder } from '../domain/order.js';
import { executionFailedEvent, orderCreatedEvent, routingDecidedEvent } from '../domain/order-events.js';
import { chooseRail, environmentOf, type RouteChoice, type RouteCriteria } from '../domain/routing.js';
import { findOrderOfPayment, insertOrder } from '../store/orders.js';
import { activeRails, updateBreaker } from '../store/rails.js';
import type { RouterDeps } from './deps.js';

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
  const { breaker } = deps.config;
  for (;;) {
    const rails = await activeRails(deps.db, criteria.environment);
    const now = deps.now();
    const choice = chooseRail(rails, criteria, { exclude: tried, now, breaker });
    if (!choice.rail || !choice.halfOpenTrial) return choice;
    const claimed = await updateBreaker(deps.db, choice.rail._id, (state) =>
      admitsOrder(state, now, breaker) ? startTrial(state, orderKey, now) : null,
    );
    if (claimed) return choice;
  }
}

/** payment.initiated: one order per payment; a redelivery or a second initiation reuses it. */
export async function routePayment(deps: RouterDeps, data: PaymentInitiatedData): Promise<void> {
  const { payment, execution } = data;
  if (await findOrderOfPayment(deps.db, payment.id)) {
    deps.log.info({ paymentId: payment.id }, 'payment already has an order; reusing it');
    return;
  }
  const now = deps.now();
  const orderKey = newPaymentOrderKey();
  const criteria: RouteCriteria = {
    environment: environmentOf(payment.livemode),
    network: execution.network,
    currency: payment.currency,
    country: execution.country,
  };
  const choice = await pickRail(deps, criteria, orderKey, []);
  const { order, step } = routedOrder(
    {
      _id: orderKey,
      paymentId: payment.id,
      projectId: payment.projectId,
      livemode: payment.livemode,
      amount: payment.amount,
      currency: payment.currency,
      criteria,
      transactionRef: payment.token,
      payload: paymentExecuteBody(orderKey, data, now),
    },
    choice,
    now,
    deps.config.orderTtlSeconds * 1000,
  );
  const events = [
    routingDecidedEvent(order, step, order.providerId),
    choice.rail
      ? orderCreatedEvent(order, choice.rail, order.createdAt)
      : executionFailedEvent(order, 'provider_unavailable', choice.reason, order.createdAt),
  ];
  try {
    await insertOrder(deps.outbox, deps.db, order, events);
  } catch (error) {
    // A concurrent replica routed the same payment first: its order stands.
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
  deps.log.info(
    { paymentId: payment.id, orderKey, railId: order.railId, reason: choice.reason },
    'payment routed',
  );
}
