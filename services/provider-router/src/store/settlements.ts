import type { Outbox } from '@mmp/platform';
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

export function settlementsOfOrders(db: RouterDb, orderKeys: string[]): Promise<Settlement[]> {
  return orderKeys.length ? db.settlements.find({ orderKey: { $in: orderKeys } }) : Promise.resolve([]);
}

export function settlementsReceivedWithin(
  db: RouterDb,
  providerId: string,
  day: { from: string; to: string },
): Promise<Settlement[]> {
  return db.settlements.find({ providerId, receivedAt: { $gte: day.from, $lt: day.to } });
}

export function mismatchesReceivedWithin(
  db: RouterDb,
  providerId: string,
  livemode: boolean,
  day: { from: string; to: string },
): Promise<SettlementMismatch[]> {
  return db.mismatches.find({ providerId, livemode, receivedAt: { $gte: day.from, $lt: day.to } });
}
