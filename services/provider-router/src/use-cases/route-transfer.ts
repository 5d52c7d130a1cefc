import {
  newPayoutOrderKey,
  type PayoutRouteAnswer,
  type PayoutRouteQuery,
  type TransferRequestedData,
} from '@mmp/protocol';
import { DuplicateKeyError } from '@mmp/platform';
import { payoutExecuteBody, routedOrder } from '../domain/order.js';
import { orderCreatedEvent, transferSettledEvents } from '../domain/order-events.js';
import { chooseRail, environmentOf, type RouteCriteria } from '../domain/routing.js';
import { findOrderOfPayment, insertOrder } from '../store/orders.js';
import { activeRails } from '../store/rails.js';
import type { RouterDeps } from './deps.js';
import { pickRail } from './route-payment.js';

/**
 * transfer.requested: a refund or payout payments has debited becomes one payout.execute
 * order (`pexo_…`) on an ACTIVE payout-capable rail of its environment, the preferred rail
 * first, with the breaker and failover of payment orders. No rail: transfer.settled FAILED
 * at once, so payments gives the amount back. A redelivery finds the order and adds nothing.
 */
export async function routeTransfer(deps: RouterDeps, data: TransferRequestedData): Promise<void> {
  if (await findOrderOfPayment(deps.db, data.transferId)) {
    deps.log.info({ transferId: data.transferId }, 'transfer already has an order; reusing it');
    return;
  }
  const now = deps.now();
  const orderKey = newPayoutOrderKey();
  const criteria: RouteCriteria = {
    environment: environmentOf(data.livemode),
    network: data.network,
    currency: data.currency,
    country: data.country,
    payout: true,
    preferredRailId: data.preferredRailId,
  };
  const choice = await pickRail(deps, criteria, orderKey, []);
  const { order } = routedOrder(
    {
      _id: orderKey,
      paymentId: data.transferId,
      projectId: data.projectId,
      livemode: data.livemode,
      amount: data.amount,
      currency: data.currency,
      criteria,
      transactionRef: data.transferId,
      payload: payoutExecuteBody(orderKey, data, now),
      transfer: { id: data.transferId, kind: data.kind },
    },
    choice,
    now,
    deps.config.orderTtlSeconds * 1000,
  );
  const events = choice.rail
    ? [orderCreatedEvent(order, choice.rail, order.createdAt)]
    : transferSettledEvents(
        order,
        { status: 'FAILED', failureCode: 'provider_unavailable', railId: null },
        order.createdAt,
      );
  try {
    await insertOrder(deps.outbox, deps.db, order, events);
  } catch (error) {
    // A concurrent replica routed the same transfer first: its order stands.
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
  deps.log.info(
    { transferId: data.transferId, kind: data.kind, orderKey, railId: order.railId, reason: choice.reason },
    'transfer routed',
  );
}

/**
 * The gate payments asks before debiting a refund or payout: would a rail take its order
 * now? `anyRailOfEnvironment` tells a live key on a system without live payout rails apart
 * from a channel no payout rail serves.
 */
export async function payoutRoute(deps: RouterDeps, query: PayoutRouteQuery): Promise<PayoutRouteAnswer> {
  const environment = environmentOf(query.livemode);
  const rails = await activeRails(deps.db, environment);
  const criteria: RouteCriteria = { environment, ...query, payout: true };
  const choice = chooseRail(rails, criteria, { exclude: [], now: deps.now(), breaker: deps.config.breaker });
  return {
    available: choice.rail !== null,
    anyRailOfEnvironment: rails.some((rail) => rail.supportsPayout && rail.inService !== false),
    reason: choice.reason,
  };
}
