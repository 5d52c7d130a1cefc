import { ensureOutboxIndex, type Collection, type Doc, type Store } from '@mmp/platform';
import { OPEN_STATUSES, type Order } from '../domain/order.js';

export type OrderDoc = Order & Doc;
export type Orders = Collection<OrderDoc>;

export async function openOrders(store: Store): Promise<Orders> {
  const orders = store.collection<OrderDoc>('orders');
  await ensureOutboxIndex(orders as Collection<Doc>);
  await orders.ensureIndex({ fields: { providerId: 1, transport: 1, status: 1, createdAt: 1 } });
  await orders.ensureIndex({ fields: { providerId: 1, orderKey: 1 } });
  await orders.ensureIndex({ fields: { status: 1, expiresAt: 1 } });
  return orders;
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
