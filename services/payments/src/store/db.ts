import {
  IDEMPOTENCY_INDEX,
  announcingWrites,
  collection,
  ensureCollectionIndexes,
  openCollections,
  type Store,
} from '@mmp/platform';
import type { Account, LedgerEntryDoc } from '../domain/ledger.js';
import type { Payment } from '../domain/payment.js';
import type { Payout, Refund } from '../domain/transfer.js';
import type { PaymentsIdempotencyRecord } from './idempotency.js';
import type { WebhookDelivery, WebhookEndpoint } from '../domain/webhooks.js';

/** The payments service's collections with their indexes; the only place that names them. */
const COLLECTIONS = {
  payments: collection<Payment>('payments', [
    { fields: { token: 1 }, unique: true },
    { fields: { referenceKey: 1 }, unique: true, sparse: true },
    { fields: { sessionKey: 1 }, unique: true, sparse: true },
    { fields: { projectId: 1, livemode: 1, createdAt: -1, id: -1 } },
    { fields: { userId: 1, createdAt: -1 } },
    // The list's search box: a substring of any of these (see listFilter).
    { fields: { reference: 1, token: 1, payerPhone: 1, payerName: 1 }, text: true },
    { fields: { idempotencyId: 1 } },
    // The expiry loop reads due payments by `openUntil`, a deadline only open payments carry:
    // a range over this sparse index is exactly the due ones in MongoDB and NeDB alike, and
    // settled payments are never visited again. (NeDB serves a compound index only for plain
    // equality on every field, and a single-field `status` index would capture every
    // `{_id, status}` compare-and-set as a read of all payments in that status.)
    { fields: { openUntil: 1 }, sparse: true },
    // Lets MongoDB find, at start, open payments stored before `openUntil` existed.
    { fields: { status: 1, expiresAt: 1 } },
  ]),
  idempotency: collection<PaymentsIdempotencyRecord>('idempotency_keys', [IDEMPOTENCY_INDEX]),
  endpoints: collection<WebhookEndpoint>('webhook_endpoints', [{ fields: { projectId: 1, livemode: 1 } }]),
  deliveries: collection<WebhookDelivery>('webhook_deliveries', [
    // The sender loop asks for due deliveries through this index.
    { fields: { nextAttemptAt: 1 } },
    { fields: { endpointId: 1, createdAt: -1 } },
  ]),
  accounts: collection<Account>('balance_accounts', [{ fields: { projectId: 1, livemode: 1 } }]),
  ledgerEntries: collection<LedgerEntryDoc>('ledger_entries'),
  refunds: collection<Refund>('refunds', [
    { fields: { paymentId: 1, createdAt: -1 } },
    { fields: { idempotencyId: 1 } },
    { fields: { debited: 1, createdAt: 1 } },
  ]),
  payouts: collection<Payout>('payouts', [
    { fields: { referenceKey: 1 }, unique: true },
    { fields: { projectId: 1, livemode: 1, createdAt: -1, id: -1 } },
    { fields: { idempotencyId: 1 } },
    { fields: { debited: 1, createdAt: 1 } },
  ]),
};

/**
 * The collections; `paymentWritten` hears every write of a payment a merchant could see
 * (with the payment, or without one when many may have changed), whoever makes it.
 */
export function openPaymentsDb(store: Store, paymentWritten: (payment?: Payment) => void = () => undefined) {
  const db = openCollections(store, COLLECTIONS);
  return { ...db, payments: announcingWrites(db.payments, paymentWritten) };
}
export type PaymentsDb = ReturnType<typeof openPaymentsDb>;

export const ensureIndexes = (db: PaymentsDb) => ensureCollectionIndexes(db, COLLECTIONS);
