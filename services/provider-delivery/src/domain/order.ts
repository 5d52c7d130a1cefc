import {
  deliveryEvents,
  newEvent,
  type DeliveryClassification,
  type OrderAck,
  type OrderCreatedData,
  type PendingEvent,
  type PullOrderStatus,
} from '@mmp/protocol';

/**
 * An order on one rail. PENDING: not yet delivered (webhook: not yet acked; pull: never
 * fetched). DELIVERED: fetched at least once by a pull provider, re-deliverable until acked.
 * ACKED: the provider answered ACCEPTED or REJECTED. FAILED: the webhook delivery failed.
 * EXPIRED: not pulled or not acked before `expiresAt`.
 */
export const ORDER_STATUSES = ['PENDING', 'DELIVERED', 'ACKED', 'FAILED', 'EXPIRED'] as const;
export type { OrderAck };
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** States from which an order can still be delivered, acked or expire. */
export const OPEN_STATUSES: OrderStatus[] = ['PENDING', 'DELIVERED'];

/**
 * How one attempt ended: the delivery classifications, or IN_FLIGHT while the POST is out
 * (stored before sending), or INTERRUPTED when the process died before the answer was
 * recorded and a later delivery found it still in flight.
 */
export type AttemptClassification = DeliveryClassification | 'IN_FLIGHT' | 'INTERRUPTED';

/** One webhook attempt, kept on the order for support and the circuit breaker's history. */
export type DeliveryAttempt = {
  attempt: number;
  at: Date;
  httpStatus: number | null;
  latencyMs: number | null;
  classification: AttemptClassification;
  reason: string | null;
};

export function inFlightAttempt(attempt: number, at: Date): DeliveryAttempt {
  return { attempt, at, httpStatus: null, latencyMs: null, classification: 'IN_FLIGHT', reason: null };
}

/** An attempt found still in flight by a later delivery: its sender died mid-POST. */
export function interruptedAttempt(attempt: DeliveryAttempt): DeliveryAttempt {
  return {
    ...attempt,
    classification: 'INTERRUPTED',
    reason: 'provider-delivery stopped before the answer was recorded',
  };
}

/** Every attempt of an order, the one in flight (if any) last. */
export function allAttempts(order: Pick<Order, 'attempts' | 'inFlight'>): DeliveryAttempt[] {
  return order.inFlight ? [...order.attempts, order.inFlight] : order.attempts;
}

export type Order = {
  _id: string;
  orderKey: string;
  paymentId: string;
  railId: string;
  providerId: string;
  transport: OrderCreatedData['transport'];
  payload: Record<string, unknown>;
  projectId: string | null;
  livemode: boolean | null;
  status: OrderStatus;
  /** Webhook attempts claimed so far (claimed before sending, so a crash never re-sends unseen). */
  attemptCount: number;
  /** Finished attempts, oldest first. */
  attempts: DeliveryAttempt[];
  /** The attempt whose POST is out now, stored before sending (null, or missing on old records). */
  inFlight?: DeliveryAttempt | null;
  /** Pull fetches that returned this order. */
  deliveryCount: number;
  ack: OrderAck | null;
  outcome: DeliveryClassification | null;
  reason: string | null;
  createdAt: Date;
  expiresAt: Date;
  updatedAt: Date;
};

/** A failover to another rail is a new delivery of the same key, hence one record per rail. */
export function orderId(orderKey: string, railId: string): string {
  return `${orderKey}:${railId}`;
}

export function newOrder(
  data: OrderCreatedData,
  envelope: { projectId?: string; livemode?: boolean },
  now: Date,
): Order {
  return {
    _id: orderId(data.orderKey, data.railId),
    orderKey: data.orderKey,
    paymentId: data.paymentId,
    railId: data.railId,
    providerId: data.providerId,
    transport: data.transport,
    payload: data.payload,
    projectId: envelope.projectId ?? null,
    livemode: envelope.livemode ?? null,
    status: 'PENDING',
    attemptCount: 0,
    attempts: [],
    inFlight: null,
    deliveryCount: 0,
    ack: null,
    outcome: null,
    reason: null,
    createdAt: now,
    expiresAt: new Date(data.expiresAt),
    updatedAt: now,
  };
}

/** The ack type that answers an order's payload type (payment.execute → payment.ack). */
export function expectedAckType(order: Pick<Order, 'payload'>): OrderAck['type'] {
  return order.payload.type === 'payout.execute' ? 'payout.ack' : 'payment.ack';
}

/** The specification's own casing of pull order states (see PullOrderStatus). */
const PULL_STATUS: Record<Exclude<OrderStatus, 'FAILED'>, PullOrderStatus> = {
  PENDING: 'pending',
  DELIVERED: 'DELIVERED',
  ACKED: 'acked',
  EXPIRED: 'expired',
};

/** The pull transport's order entry (PullOrder); only pull orders have one, and never FAILED. */
export function toOrderEntry(order: Order, withAck = false) {
  return {
    idempotency_key: order.orderKey,
    payload: order.payload,
    status: PULL_STATUS[order.status === 'FAILED' ? 'EXPIRED' : order.status],
    created_at: order.createdAt.toISOString(),
    expires_at: order.expiresAt.toISOString(),
    delivery_count: order.deliveryCount,
    ...(withAck && order.ack ? { ack: order.ack } : {}),
  };
}

/** Two acks are the same ack when every field the provider sent is equal. */
export function sameAck(a: OrderAck, b: OrderAck): boolean {
  return (
    a.type === b.type &&
    a.idempotency_key === b.idempotency_key &&
    a.status === b.status &&
    (a.reason ?? null) === (b.reason ?? null)
  );
}

/** The delivery.* event provider-router acts on: accepted, rejected, failed or expired. */
export function outcomeEvent(
  order: Order,
  classification: DeliveryClassification,
  reason: string | null,
  attempts: number,
  at: Date,
): PendingEvent {
  const contract =
    classification === 'ACCEPTED'
      ? deliveryEvents.accepted
      : classification === 'REJECTED'
        ? deliveryEvents.rejected
        : classification === 'EXPIRED'
          ? deliveryEvents.expired
          : deliveryEvents.failed;
  return newEvent(
    contract,
    {
      orderKey: order.orderKey,
      paymentId: order.paymentId,
      railId: order.railId,
      classification,
      reason,
      attempts,
    },
    {
      occurredAt: at.toISOString(),
      ...(order.projectId ? { projectId: order.projectId } : {}),
      ...(order.livemode !== null ? { livemode: order.livemode } : {}),
    },
  );
}
