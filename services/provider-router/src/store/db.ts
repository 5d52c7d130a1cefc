import {
  announcingWrites,
  collection,
  ensureCollectionIndexes,
  openCollections,
  type Store,
} from '@mmp/platform';
import type { Provider } from '../domain/provider.js';
import type { Rail } from '../domain/rail.js';
import type { Order } from '../domain/order.js';
import type { Settlement, SettlementMismatch } from '../domain/reconciliation.js';
import type { ChannelBadge } from '../domain/certification.js';

/** provider-router's collections with their indexes; the only place that names them. */
const COLLECTIONS = {
  providers: collection<Provider>('providers'),
  rails: collection<Rail>('rails', [
    { fields: { providerId: 1, createdAt: 1 } },
    { fields: { status: 1, environment: 1 } },
  ]),
  orders: collection<Order>('orders', [
    // One order per payment: a redelivered payment.initiated finds the same order and key.
    { fields: { paymentId: 1 }, unique: true },
    { fields: { transactionRef: 1 } },
    { fields: { providerId: 1, livemode: 1, createdAt: 1 } },
    // A rail's open orders, asked before it is deleted.
    { fields: { railId: 1, status: 1 } },
  ]),
  settlements: collection<Settlement>('settlements', [
    // A provider's idempotency_key is seen once: the second one is a 409 duplicate.
    { fields: { providerId: 1, idempotencyKey: 1 }, unique: true },
    // One outcome per order: the first final settlement holds it, any later one cannot.
    { fields: { outcomeOf: 1 }, unique: true, sparse: true },
    { fields: { orderKey: 1 } },
    { fields: { providerId: 1, receivedAt: 1 } },
  ]),
  mismatches: collection<SettlementMismatch>('settlement_mismatches', [
    { fields: { providerId: 1, receivedAt: 1 } },
  ]),
  channelBadges: collection<ChannelBadge>('channel_badges', [{ fields: { providerId: 1, certified: 1 } }]),
};

/**
 * The collections; `providerWritten` hears every write of a provider (with it, or without
 * one when many may have changed), whoever makes it.
 */
export function openRouterDb(store: Store, providerWritten: (provider?: Provider) => void = () => undefined) {
  const db = openCollections(store, COLLECTIONS);
  return { ...db, providers: announcingWrites(db.providers, providerWritten) };
}
export type RouterDb = ReturnType<typeof openRouterDb>;

export const ensureIndexes = (db: RouterDb) => ensureCollectionIndexes(db, COLLECTIONS);
