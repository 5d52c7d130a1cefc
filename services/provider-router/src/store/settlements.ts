import { within, type Outbox } from '@mmp/platform';
import type { PendingEvent } from '@mmp/protocol';
import type { Settlement, SettlementMismatch } from '../domain/reconciliation.js';
import type { RouterDb } from './db.js';

export function findSettlementByKey(
  db: RouterDb,
  providerId: string,
  idempotencyKey: string,
): Promise<Settlement | null> {
  return db.settlements.findOne({ providerId, idempotencyKey });
}

/** One more refused repeat of a settlement's key. */
export async function countDuplicate(db: RouterDb, settlementId: string): Promise<void> {
  await db.settlements.findOneAndUpdate({ _id: settlementId }, { $inc: { duplicatesRefused: 1 } });
}

/** The settlement that decided an order, if one did. */
export function findOutcomeOf(db: RouterDb, orderKey: string): Promise<Settlement | null> {
  return db.settlements.findOne({ outcomeOf: orderKey });
}

/**
 * Stores a settlement with its events in one write. A DuplicateKeyError means either its
 * key was already received or, when it claims `outcomeOf`, its order was decided already.
 */
export function insertSettlement(
  outbox: Outbox,
  db: RouterDb,
  settlement: Settlement,
  events: PendingEvent[],
  requestId?: string,
): Promise<void> {
  return outbox.insert(db.settlements, settlement, events, requestId);
}

export function insertMismatch(db: RouterDb, mismatch: SettlementMismatch): Promise<void> {
  return db.mismatches.insertOne(mismatch);
}

/** The settlements that decided any of `orderKeys`. */
export function outcomesOf(db: RouterDb, orderKeys: string[]): Promise<Settlement[]> {
  return orderKeys.length ? db.settlements.find({ outcomeOf: { $in: orderKeys } }) : Promise.resolve([]);
}

/**
 * What one provider's reconciliation of an environment and UTC day reads: its orders created
 * that day, their settlements, every settlement it sent that day (one without an order has no
 * environment) and the environment's amount mismatches of the day.
 */
export async function reconciliationInputs(
  db: RouterDb,
  query: { providerId: string; livemode: boolean },
  day: { from: string; to: string },
) {
  const { providerId, livemode } = query;
  const orders = await db.orders.find({ providerId, livemode, createdAt: within(day) });
  const orderKeys = orders.map((order) => order._id);
  return {
    orders,
    settlementsOfOrders: orderKeys.length ? await db.settlements.find({ orderKey: { $in: orderKeys } }) : [],
    settlementsOfDay: await db.settlements.find({ providerId, receivedAt: within(day) }),
    mismatches: await db.mismatches.find({ providerId, livemode, receivedAt: within(day) }),
  };
}
