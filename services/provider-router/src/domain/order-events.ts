import { newEvent, routerEvents, transferEvents, type EventContract, type PendingEvent } from '@mmp/protocol';
import type { z } from 'zod';
import type { Order, RoutingStep } from './order.js';
import type { Rail } from './rail.js';
import type { Settlement } from './reconciliation.js';

/** An event about an order, carrying its project and environment. */
function orderEvent<C extends EventContract>(
  contract: C,
  order: Order,
  data: z.input<C['data']>,
  at: string,
): PendingEvent {
  return newEvent(contract, data, { occurredAt: at, projectId: order.projectId, livemode: order.livemode });
}

/**
 * Certification and transfer orders are no payment's: payments never hears of their routing
 * or execution (a transfer's outcome travels as transfer.settled instead).
 */
export function paymentEventsOf(order: Order, events: PendingEvent[]): PendingEvent[] {
  return order.certification || order.transfer ? [] : events;
}

/** A transfer's outcome, for payments; nothing for any other order. */
export function transferSettledEvents(
  order: Order,
  outcome: { status: 'COMPLETED' | 'FAILED'; failureCode: string | null; railId: string | null },
  at: string,
): PendingEvent[] {
  if (!order.transfer) return [];
  const { id, kind } = order.transfer;
  return [
    orderEvent(
      transferEvents.settled,
      order,
      { transferId: id, kind, orderKey: order._id, ...outcome, settledAt: at },
      at,
    ),
  ];
}

/** order.created: the order for `rail` (again with the same key on failover). */
export function orderCreatedEvent(order: Order, rail: Rail, at: string): PendingEvent {
  return orderEvent(
    routerEvents.orderCreated,
    order,
    {
      orderKey: order._id,
      paymentId: order.paymentId,
      railId: rail._id,
      providerId: rail.providerId,
      transport: rail.transport,
      payload: order.payload,
      expiresAt: order.expiresAt,
    },
    at,
  );
}

export function executionAcceptedEvent(order: Order, railId: string, reason: string, at: string) {
  return orderEvent(
    routerEvents.executionAccepted,
    order,
    { paymentId: order.paymentId, orderKey: order._id, railId, code: null, reason },
    at,
  );
}

export function executionFailedEvent(order: Order, code: string, reason: string, at: string) {
  return orderEvent(
    routerEvents.executionFailed,
    order,
    { paymentId: order.paymentId, orderKey: order._id, railId: order.railId, code, reason },
    at,
  );
}

/**
 * routing.decided: a routing step of the order (first choice, failover, or no rail), with
 * the rails passed over, so payments can put it on the payment's timeline. Published in
 * the same write as the order change it describes.
 */
export function routingDecidedEvent(order: Order, step: RoutingStep, providerId: string | null) {
  return orderEvent(
    routerEvents.routingDecided,
    order,
    {
      paymentId: order.paymentId,
      orderKey: order._id,
      decision: step.action,
      railId: step.railId,
      providerId,
      reason: step.reason,
      skipped: step.skipped ?? [],
    },
    step.at,
  );
}

/** What settlement.received and `orders.status` say of an order's settlement. */
export function settlementData(settlement: Settlement, order: Order) {
  return {
    settlementId: settlement._id,
    paymentId: order.paymentId,
    orderKey: order._id,
    providerId: settlement.providerId,
    status: settlement.status,
    amount: order.amount,
    currency: order.currency,
    network: settlement.network,
    settledAt: settlement.settledAt,
    failureCode: settlement.failureCode,
  };
}

/** settlement.received: the outcome that decides the payment. */
export function settlementReceivedEvent(settlement: Settlement, order: Order, at: string): PendingEvent {
  return orderEvent(routerEvents.settlementReceived, order, settlementData(settlement, order), at);
}
