import type { Outbox, Update } from '@mmp/platform';
import type { PendingEvent } from '@mmp/protocol';
import type { Order } from '../domain/order.js';
import type { RouterDb } from './db.js';

export function findOrder(db: RouterDb, orderKey: string): Promise<Order | null> {
  return db.orders.findOne({ _id: orderKey });
}

export function findOrderOfPayment(db: RouterDb, paymentId: string): Promise<Order | null> {
  return db.orders.findOne({ paymentId });
}

/**
 * The order a settlement is about: by its key, else by our transaction_ref, and only an
 * order handed to one of this provider's rails.
 */
export async function findOrderToSettle(
  db: RouterDb,
  providerId: string,
  refs: { idempotencyKey: string; transactionRef: string },
): Promise<Order | null> {
  // One read for both (a settlement of no order, as many are, cost two).
  const found = await db.orders.find({
    $or: [{ _id: refs.idempotencyKey }, { transactionRef: refs.transactionRef }],
  });
  const order = found.find((candidate) => candidate._id === refs.idempotencyKey) ?? found[0] ?? null;
  return order && order.providerIds.includes(providerId) ? order : null;
}

/**
 * Orders on `railId` that may still move: ROUTED (delivery under way), or ACCEPTED and not
 * yet expired (a settlement is awaited). Whether an ACCEPTED one was settled already is
 * the settlements' word, not the order's.
 */
export function unfinishedOrdersOn(db: RouterDb, railId: string, now: string): Promise<Order[]> {
  return db.orders.find({
    railId,
    $or: [{ status: 'ROUTED' }, { status: 'ACCEPTED', expiresAt: { $gt: now } }],
  });
}

/** A new order with its events; a second order of the same payment is a DuplicateKeyError. */
export function insertOrder(outbox: Outbox, db: RouterDb, order: Order, events: PendingEvent[]) {
  return outbox.insert(db.orders, order, events);
}

/**
 * Compare-and-set from ROUTED on the rail the order is on, with its events: a stale or
 * repeated outcome finds the guard failed and changes nothing (null).
 */
export function moveRoutedOrder(
  outbox: Outbox,
  db: RouterDb,
  order: Order,
  update: Update,
  events: PendingEvent[],
): Promise<Order | null> {
  return outbox.update(db.orders, { _id: order._id, status: 'ROUTED', railId: order.railId }, update, events);
}
