import type { Store } from '@mmp/platform';
import type { Provider } from '../domain/provider.js';
import type { Rail } from '../domain/rail.js';
import type { Order } from '../domain/order.js';
import type { Settlement, SettlementMismatch } from '../domain/reconciliation.js';
import type { ChannelBadge } from '../domain/certification.js';

/** provider-router's collections; the only place that names them. */
export function openRouterDb(store: Store) {
  return {
    providers: store.collection<Provider>('providers'),
    rails: store.collection<Rail>('rails'),
    orders: store.collection<Order>('orders'),
    settlements: store.collection<Settlement>('settlements'),
    mismatches: store.collection<SettlementMismatch>('settlement_mismatches'),
    channelBadges: store.collection<ChannelBadge>('channel_badges'),
  };
}
export type RouterDb = ReturnType<typeof openRouterDb>;

export async function ensureIndexes(db: RouterDb): Promise<void> {
  await db.rails.ensureIndex({ fields: { providerId: 1, createdAt: 1 } });
  await db.rails.ensureIndex({ fields: { status: 1, environment: 1 } });
  // One order per payment: a redelivered payment.initiated finds the same order and key.
  await db.orders.ensureIndex({ fields: { paymentId: 1 }, unique: true });
  await db.orders.ensureIndex({ fields: { transactionRef: 1 } });
  await db.orders.ensureIndex({ fields: { providerId: 1, livemode: 1, createdAt: 1 } });
  // A rail's open orders, asked before it is deleted.
  await db.orders.ensureIndex({ fields: { railId: 1, status: 1 } });
  // A provider's idempotency_key is seen once: the second one is a 409 duplicate.
  await db.settlements.ensureIndex({ fields: { providerId: 1, idempotencyKey: 1 }, unique: true });
  // One outcome per order: the first final settlement holds it, any later one cannot.
  await db.settlements.ensureIndex({ fields: { outcomeOf: 1 }, unique: true, sparse: true });
  await db.settlements.ensureIndex({ fields: { orderKey: 1 } });
  await db.settlements.ensureIndex({ fields: { providerId: 1, receivedAt: 1 } });
  await db.channelBadges.ensureIndex({ fields: { providerId: 1, certified: 1 } });
  await db.mismatches.ensureIndex({ fields: { providerId: 1, receivedAt: 1 } });
}
