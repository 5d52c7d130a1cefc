import { DuplicateKeyError } from '@mmp/platform';
import type { DeliveryAttempt, WebhookDelivery, WebhookEndpoint } from '../domain/webhooks.js';
import type { PaymentsDb } from './db.js';
import type { Scope } from './payments.js';

export function findEndpoint(db: PaymentsDb, id: string, scope?: Scope): Promise<WebhookEndpoint | null> {
  return db.endpoints.findOne(
    scope ? { _id: id, projectId: scope.projectId, livemode: scope.livemode } : { _id: id },
  );
}

export function listEndpoints(db: PaymentsDb, scope: Scope): Promise<WebhookEndpoint[]> {
  return db.endpoints.find(
    { projectId: scope.projectId, livemode: scope.livemode },
    { sort: { createdAt: -1 }, limit: 100 },
  );
}

export function countEndpoints(db: PaymentsDb, scope: Scope): Promise<number> {
  return db.endpoints.count({ projectId: scope.projectId, livemode: scope.livemode });
}

export function insertEndpoint(db: PaymentsDb, endpoint: WebhookEndpoint): Promise<void> {
  return db.endpoints.insertOne(endpoint);
}

export function updateEndpoint(
  db: PaymentsDb,
  endpoint: WebhookEndpoint,
  set: Partial<WebhookEndpoint>,
): Promise<WebhookEndpoint | null> {
  return db.endpoints.findOneAndUpdate({ _id: endpoint._id }, { $set: set });
}

export async function deleteEndpoint(db: PaymentsDb, endpoint: WebhookEndpoint): Promise<void> {
  await db.endpoints.deleteMany({ _id: endpoint._id });
}

export function enabledEndpoints(db: PaymentsDb, scope: Scope): Promise<WebhookEndpoint[]> {
  return db.endpoints.find(
    { projectId: scope.projectId, livemode: scope.livemode, status: 'enabled' },
    { limit: 100 },
  );
}

/** Inserts the delivery of one event to one endpoint; a second insert of the pair is a no-op. */
export async function insertDelivery(db: PaymentsDb, delivery: WebhookDelivery): Promise<boolean> {
  try {
    await db.deliveries.insertOne(delivery);
    return true;
  } catch (error) {
    if (error instanceof DuplicateKeyError) return false;
    throw error;
  }
}

export function listDeliveries(
  db: PaymentsDb,
  endpointId: string,
  limit: number,
): Promise<WebhookDelivery[]> {
  return db.deliveries.find({ endpointId }, { sort: { createdAt: -1, id: -1 }, limit });
}

/** Deliveries whose next attempt is due, plus sends a crashed sender left claimed. */
export function findDueDeliveries(db: PaymentsDb, now: Date, limit: number): Promise<WebhookDelivery[]> {
  const at = now.toISOString();
  return db.deliveries.find(
    {
      nextAttemptAt: { $lte: at },
      $or: [{ status: 'pending' }, { status: 'sending', claimedUntil: { $lte: at } }],
    },
    { sort: { nextAttemptAt: 1 }, limit },
  );
}

/**
 * Claims a delivery for one send (compare-and-set on what was read), so no two senders,
 * replicas or a redeliver ever post the same event to the same endpoint at the same time.
 */
export function claimDelivery(
  db: PaymentsDb,
  delivery: WebhookDelivery,
  claimedUntil: Date,
): Promise<WebhookDelivery | null> {
  return db.deliveries.findOneAndUpdate(
    { _id: delivery._id, status: delivery.status, updatedAt: delivery.updatedAt },
    {
      $set: {
        status: 'sending',
        claimedUntil: claimedUntil.toISOString(),
        updatedAt: new Date().toISOString(),
      },
    },
  );
}

export type AttemptOutcome =
  { kind: 'delivered' } | { kind: 'retry'; nextAttemptAt: Date } | { kind: 'failed' };

export function recordAttempt(
  db: PaymentsDb,
  delivery: WebhookDelivery,
  attempt: DeliveryAttempt,
  outcome: AttemptOutcome,
): Promise<WebhookDelivery | null> {
  const set: Record<string, unknown> = {
    claimedUntil: null,
    manual: false,
    updatedAt: new Date().toISOString(),
  };
  if (outcome.kind === 'delivered') Object.assign(set, { status: 'delivered', nextAttemptAt: null });
  if (outcome.kind === 'failed') Object.assign(set, { status: 'failed', nextAttemptAt: null });
  if (outcome.kind === 'retry')
    Object.assign(set, { status: 'pending', nextAttemptAt: outcome.nextAttemptAt.toISOString() });
  return db.deliveries.findOneAndUpdate(
    { _id: delivery._id, status: 'sending', claimedUntil: delivery.claimedUntil },
    { $set: set, $push: { attempts: { $each: [attempt] } }, $inc: { retryCount: delivery.manual ? 0 : 1 } },
  );
}

/** Queues one more attempt now; refused while a send is in flight. */
export function requestRedelivery(
  db: PaymentsDb,
  delivery: WebhookDelivery,
  now: Date,
): Promise<WebhookDelivery | null> {
  if (delivery.status === 'sending') return Promise.resolve(null);
  return db.deliveries.findOneAndUpdate(
    { _id: delivery._id, status: delivery.status, updatedAt: delivery.updatedAt },
    {
      $set: {
        status: 'pending',
        // A redelivery of a finished delivery is one attempt; a pending one keeps its schedule.
        manual: delivery.status !== 'pending',
        nextAttemptAt: now.toISOString(),
        updatedAt: now.toISOString(),
      },
    },
  );
}
