import { ensureOutboxIndex, type Collection, type Doc, type Store } from '@mmp/platform';
import type { Payment } from '../domain/payment.js';
import type { IdempotencyRecord } from './idempotency.js';
import type { WebhookDelivery, WebhookEndpoint } from '../domain/webhooks.js';

/** The payments service's collections; the only place that names them. */
export function openPaymentsDb(store: Store) {
  return {
    payments: store.collection<Payment>('payments'),
    idempotency: store.collection<IdempotencyRecord>('idempotency_keys'),
    endpoints: store.collection<WebhookEndpoint>('webhook_endpoints'),
    deliveries: store.collection<WebhookDelivery>('webhook_deliveries'),
  };
}
export type PaymentsDb = ReturnType<typeof openPaymentsDb>;

const DAY_SECONDS = 24 * 3600;

export async function ensureIndexes(db: PaymentsDb): Promise<void> {
  await db.payments.ensureIndex({ fields: { token: 1 }, unique: true });
  await db.payments.ensureIndex({ fields: { referenceKey: 1 }, unique: true, sparse: true });
  await db.payments.ensureIndex({ fields: { sessionKey: 1 }, unique: true, sparse: true });
  await db.payments.ensureIndex({ fields: { projectId: 1, livemode: 1, createdAt: -1, id: -1 } });
  await db.payments.ensureIndex({ fields: { userId: 1, createdAt: -1 } });
  await db.payments.ensureIndex({ fields: { idempotencyId: 1 } });
  // The expiry loop asks for open payments past their deadline through this index, so
  // settled payments with old deadlines are never visited again.
  await db.payments.ensureIndex({ fields: { status: 1, expiresAt: 1 } });
  await ensureOutboxIndex(db.payments as unknown as Collection<Doc>);
  await db.idempotency.ensureIndex({ fields: { createdAt: 1 }, expireAfterSeconds: DAY_SECONDS });
  await db.endpoints.ensureIndex({ fields: { projectId: 1, livemode: 1 } });
  // The sender loop asks for due deliveries through this index.
  await db.deliveries.ensureIndex({ fields: { nextAttemptAt: 1 } });
  await db.deliveries.ensureIndex({ fields: { endpointId: 1, createdAt: -1 } });
}
