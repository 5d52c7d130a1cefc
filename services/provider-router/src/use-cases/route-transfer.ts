import {
  newPayoutOrderKey,
  type PayoutRouteAnswer,
  type PayoutRouteQuery,
  type TransferRequestedData,
} from '@mmp/protocol';
import { payoutExecuteBody } from '../domain/order.js';
import { orderCreatedEvent, transferSettledEvents } from '../domain/order-events.js';
import { chooseRail, environmentOf, type RouteCriteria } from '../domain/routing.js';
import { activeRails } from '../store/rails.js';
import type { RouterDeps } from './deps.js';
import { routeNewOrder } from './route-order.js';

/**
 * transfer.requested: a refund or payout payments has debited becomes one payout.execute
 * order (`pexo_…`) on an ACTIVE payout-capable rail of its environment, the preferred rail
 * first, with the breaker and failover of payment orders. No rail: transfer.settled FAILED
 * at once, so payments gives the amount back. A redelivery finds the order and adds nothing.
 */
export function routeTransfer(deps: RouterDeps, data: TransferRequestedData): Promise<void> {
  return routeNewOrder(deps, {
    kind: 'transfer',
    subject: { ...data, id: data.transferId, transactionRef: data.transferId },
    logged: { transferId: data.transferId, kind: data.kind },
    newOrderKey: newPayoutOrderKey,
    channel: {
      network: data.network,
      country: data.country,
      payout: true,
      preferredRailId: data.preferredRailId,
    },
    payload: (orderKey, now) => payoutExecuteBody(orderKey, data, now),
    transfer: { id: data.transferId, kind: data.kind },
    events: ({ order, choice }) =>
      choice.rail
        ? [orderCreatedEvent(order, choice.rail, order.createdAt)]
        : transferSettledEvents(
            order,
            { status: 'FAILED', failureCode: 'provider_unavailable', railId: null },
            order.createdAt,
          ),
  });
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
