import { ensureIdempotencyIndex, type Store } from '@mmp/platform';
import type { Account, LedgerEntryDoc } from '../domain/ledger.js';
import type { Payment } from '../domain/payment.js';
import type { Payout, Refund } from '../domain/transfer.js';
import type { PaymentsIdempotencyRecord } from './idempotency.js';
import type { WebhookDelivery, WebhookEndpoint } from '../domain/webhooks.js';

/** The payments service's collections; the only place that names them. */
export function openPaymentsDb(store: Store) {
  return {
    payments: store.collection<Payment>('payments'),
    idempotency: store.collection<PaymentsIdempotencyRecord>('idempotency_keys'),
    endpoints: store.collection<WebhookEndpoint>('webhook_endpoints'),
    deliveries: store.collection<WebhookDelivery>('webhook_deliveries'),
    accounts: store.collection<Account>('balance_accounts'),
    ledgerEntries: store.collection<LedgerEntryDoc>('ledger_entries'),
    refunds: store.collection<Refund>('refunds'),
    payouts: store.collection<Payout>('payouts'),
  };
}
export type PaymentsDb = ReturnType<typeof openPaymentsDb>;

export async function ensureIndexes(db: PaymentsDb): Promise<void> {
  await db.payments.ensureIndex({ fields: { token: 1 }, unique: true });
  await db.payments.ensureIndex({ fields: { referenceKey: 1 }, unique: true, sparse: true });
  await db.payments.ensureIndex({ fields: { sessionKey: 1 }, unique: true, sparse: true });
  await db.payments.ensureIndex({ fields: { projectId: 1, livemode: 1, createdAt: -1, id: -1 } });
  await db.payments.ensureIndex({ fields: { userId: 1, createdAt: -1 } });
  // The list's search box: a substring of any of these (see listFilter).
  await db.payments.ensureIndex({
    fields: { reference: 1, token: 1, payerPhone: 1, payerName: 1 },
    text: true,
  });
  await db.payments.ensureIndex({ fields: { idempotencyId: 1 } });
  // The expiry loop reads due payments by `openUntil`, a deadline only open payments carry:
  // a range over this sparse index is exactly the due ones in MongoDB and NeDB alike, and
  // settled payments are never visited again. (NeDB serves a compound index only for plain
  // equality on every field, and a single-field `status` index would capture every
  // `{_id, status}` compare-and-set as a read of all payments in that status.)
  await db.payments.ensureIndex({ fields: { openUntil: 1 }, sparse: true });
  // Lets MongoDB find, at start, open payments stored before `openUntil` existed.
  await db.payments.ensureIndex({ fields: { status: 1, expiresAt: 1 } });
  await ensureIdempotencyIndex(db.idempotency);
  await db.endpoints.ensureIndex({ fields: { projectId: 1, livemode: 1 } });
  // The sender loop asks for due deliveries through this index.
  await db.deliveries.ensureIndex({ fields: { nextAttemptAt: 1 } });
  await db.deliveries.ensureIndex({ fields: { endpointId: 1, createdAt: -1 } });
  await db.accounts.ensureIndex({ fields: { projectId: 1, livemode: 1 } });
  await db.refunds.ensureIndex({ fields: { paymentId: 1, createdAt: -1 } });
  await db.refunds.ensureIndex({ fields: { idempotencyId: 1 } });
  await db.refunds.ensureIndex({ fields: { debited: 1, createdAt: 1 } });
  await db.payouts.ensureIndex({ fields: { referenceKey: 1 }, unique: true });
  await db.payouts.ensureIndex({ fields: { projectId: 1, livemode: 1, createdAt: -1, id: -1 } });
  await db.payouts.ensureIndex({ fields: { idempotencyId: 1 } });
  await db.payouts.ensureIndex({ fields: { debited: 1, createdAt: 1 } });
}
