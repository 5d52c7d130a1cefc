import { type Collection, type Doc, type Outbox, type Store } from '@mmp/platform';
import type { OrderAck, PendingEvent } from '@mmp/protocol';
import { OPEN_STATUSES, type DeliveryAttempt, type Order } from '../domain/order.js';

export type OrderDoc = Order & Doc;
export type Orders = Collection<OrderDoc>;

export async function openOrders(store: Store): Promise<Orders> {
  const orders = store.collection<OrderDoc>('orders');
  await orders.ensureIndex({ fields: { providerId: 1, transport: 1, status: 1, createdAt: 1 } });
  await orders.ensureIndex({ fields: { providerId: 1, orderKey: 1 } });
  await orders.ensureIndex({ fields: { status: 1, expiresAt: 1 } });
  await orders.ensureIndex({ fields: { orderKey: 1, createdAt: 1 } });
  return orders;
}

export function findOrder(orders: Orders, id: string): Promise<Order | null> {
  return orders.findOne({ _id: id });
}

/** Every delivery of an order key, one per rail, oldest first. */
export function deliveriesOf(orders: Orders, orderKey: string): Promise<Order[]> {
  return orders.find({ orderKey }, { sort: { createdAt: 1 } });
}

/** Orders a pull provider may fetch now, oldest first. */
export function findPullable(orders: Orders, providerId: string, now: Date, limit: number) {
  return orders.find(
    { providerId, transport: 'pull', status: { $in: OPEN_STATUSES }, expiresAt: { $gt: now } },
    { sort: { createdAt: 1 }, limit },
  );
}

/** A provider's pull order by key; after a failover between two of its rails, the newest record. */
export async function findProviderOrder(orders: Orders, providerId: string, orderKey: string) {
  const [order] = await orders.find(
    { providerId, orderKey, transport: 'pull' },
    { sort: { createdAt: -1 }, limit: 1 },
  );
  return order ?? null;
}

export function findExpired(orders: Orders, now: Date, limit: number) {
  return orders.find(
    { status: { $in: OPEN_STATUSES }, expiresAt: { $lte: now } },
    { sort: { expiresAt: 1 }, limit },
  );
}

/** A fetch by its provider: DELIVERED, one more delivery counted; null once it is no longer open. */
export function markFetched(orders: Orders, id: string, at: Date): Promise<Order | null> {
  return orders.findOneAndUpdate(
    { _id: id, status: { $in: OPEN_STATUSES } },
    { $set: { status: 'DELIVERED', updatedAt: at }, $inc: { deliveryCount: 1 } },
  );
}

/**
 * Claims the next webhook attempt, stored IN_FLIGHT before anything is sent, guarded on
 * the status and attempt count read (and records attempts a crash left in flight).
 */
export function claimAttempt(
  orders: Orders,
  order: Order,
  inFlight: DeliveryAttempt,
  interrupted: DeliveryAttempt[],
): Promise<Order | null> {
  return orders.findOneAndUpdate(
    { _id: order._id, status: 'PENDING', attemptCount: order.attemptCount },
    {
      $set: { attemptCount: inFlight.attempt, inFlight, updatedAt: inFlight.at },
      ...(interrupted.length > 0 ? { $push: { attempts: { $each: interrupted } } } : {}),
    },
  );
}

/** An attempt that will be tried again: recorded, nothing in flight meanwhile. */
export function recordRetriedAttempt(orders: Orders, order: Order, attempt: DeliveryAttempt) {
  return orders.findOneAndUpdate(
    { _id: order._id, status: 'PENDING', attemptCount: attempt.attempt },
    { $set: { inFlight: null }, $push: { attempts: { $each: [attempt] } } },
  );
}

/** How a webhook delivery ended, its last attempts and its delivery.* event, in one write guarded on PENDING. */
export function finishDelivery(
  outbox: Outbox,
  orders: Orders,
  order: Order,
  end: Pick<Order, 'status' | 'outcome' | 'reason' | 'ack'>,
  attempts: DeliveryAttempt[],
  event: PendingEvent,
): Promise<Order | null> {
  return outbox.update(
    orders,
    { _id: order._id, status: 'PENDING' },
    {
      $set: { ...end, inFlight: null, updatedAt: new Date() },
      ...(attempts.length > 0 ? { $push: { attempts: { $each: attempts } } } : {}),
    },
    [event],
  );
}

/** A pull provider's ack, with its delivery.* event, while the order is still open. */
export function recordAck(
  outbox: Outbox,
  orders: Orders,
  order: Order,
  ack: OrderAck,
  outcome: Pick<Order, 'outcome' | 'reason'>,
  event: PendingEvent,
): Promise<Order | null> {
  return outbox.update(
    orders,
    { _id: order._id, status: { $in: OPEN_STATUSES } },
    { $set: { status: 'ACKED', ack, ...outcome, updatedAt: new Date() } },
    [event],
  );
}

/**
 * EXPIRED with its delivery.expired, guarded on the status read; a webhook POST still out
 * is recorded as `interrupted`, so the order shows no attempt in flight forever.
 */
export function expireOrder(
  outbox: Outbox,
  orders: Orders,
  order: Order,
  reason: string,
  interrupted: DeliveryAttempt[],
  event: PendingEvent,
  at: Date,
): Promise<Order | null> {
  return outbox.update(
    orders,
    { _id: order._id, status: order.status },
    {
      $set: { status: 'EXPIRED', outcome: 'EXPIRED', reason, updatedAt: at, inFlight: null },
      ...(interrupted.length > 0 ? { $push: { attempts: { $each: interrupted } } } : {}),
    },
    [event],
  );
}
