import type { PendingEvent } from '@mmp/protocol';
import { DuplicateKeyError } from '@mmp/platform';
import { admitsOrder, startTrial } from '../domain/breaker.js';
import { routedOrder, type Order, type OrderRequest, type RoutingStep } from '../domain/order.js';
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

/** A payment or transfer to route: one order each, its id the order's `paymentId`. */
type OrderToRoute = {
  kind: 'payment' | 'transfer';
  subject: Pick<OrderRequest, 'projectId' | 'livemode' | 'amount' | 'currency' | 'transactionRef'> & {
    id: string;
  };
  /** What the logs name it by. */
  logged: Record<string, unknown>;
  newOrderKey: () => string;
  /** The criteria but its environment and currency, which are the subject's. */
  channel: Omit<RouteCriteria, 'environment' | 'currency'>;
  payload: (orderKey: string, now: number) => Record<string, unknown>;
  transfer?: OrderRequest['transfer'];
  /** The events of its first routing, stored with the order. */
  events: (routed: { order: Order; step: RoutingStep; choice: RouteChoice }) => PendingEvent[];
};

/**
 * Routes a payment's or transfer's order: a redelivery or a second request finds the order of
 * the first and reuses it; of two replicas routing it at once, the first one's order stands.
 */
export async function routeNewOrder(deps: RouterDeps, toRoute: OrderToRoute): Promise<void> {
  const { kind, subject } = toRoute;
  if (await findOrderOfPayment(deps.db, subject.id)) {
    deps.log.info(toRoute.logged, `${kind} already has an order; reusing it`);
    return;
  }
  const now = deps.now();
  const orderKey = toRoute.newOrderKey();
  const criteria: RouteCriteria = {
    environment: environmentOf(subject.livemode),
    currency: subject.currency,
    ...toRoute.channel,
  };
  const choice = await pickRail(deps, criteria, orderKey, []);
  const { order, step } = routedOrder(
    {
      _id: orderKey,
      paymentId: subject.id,
      projectId: subject.projectId,
      livemode: subject.livemode,
      amount: subject.amount,
      currency: subject.currency,
      criteria,
      transactionRef: subject.transactionRef,
      payload: toRoute.payload(orderKey, now),
      ...(toRoute.transfer ? { transfer: toRoute.transfer } : {}),
    },
    choice,
    now,
    deps.config.orderTtlSeconds * 1000,
  );
  try {
    await insertOrder(deps.outbox, deps.db, order, toRoute.events({ order, step, choice }));
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
  deps.log.info(
    { ...toRoute.logged, orderKey, railId: order.railId, reason: choice.reason },
    `${kind} routed`,
  );
}
