import type { BreakerState } from '../domain/breaker.js';
import { updateIfUnchanged } from '@mmp/platform';
import type { Rail, RailEnvironment } from '../domain/rail.js';
import type { RouterDb } from './db.js';

export function findRail(db: RouterDb, railId: string): Promise<Rail | null> {
  return db.rails.findOne({ _id: railId });
}

/** A rail of `providerId` only: another provider's rail is not found. */
export function findProviderRail(db: RouterDb, providerId: string, railId: string): Promise<Rail | null> {
  return db.rails.findOne({ _id: railId, providerId });
}

export function listProviderRails(db: RouterDb, providerId: string): Promise<Rail[]> {
  return db.rails.find({ providerId }, { sort: { createdAt: 1 } });
}

/** The rails routing may choose from: ACTIVE and in service (a rail stored before `inService` is). */
export function activeRails(db: RouterDb, environment: RailEnvironment): Promise<Rail[]> {
  return db.rails.find({ status: 'ACTIVE', environment, inService: { $ne: false } });
}

export function insertRail(db: RouterDb, rail: Rail): Promise<void> {
  return db.rails.insertOne(rail);
}

/**
 * A provider's change, guarded on the status and endpoint it was judged on: a test or
 * another change in between makes it null (read again and retry).
 */
export function updateRailSettings(
  db: RouterDb,
  rail: Rail,
  change: Pick<Rail, 'priority' | 'endpoint' | 'supportsPayout' | 'status' | 'lastTest' | 'updatedAt'>,
): Promise<Rail | null> {
  return updateIfUnchanged(db.rails, rail, ['status', 'endpoint'], { $set: change });
}

/** Removes a provider's rail; false when it was already gone. */
export async function deleteProviderRail(db: RouterDb, providerId: string, railId: string): Promise<boolean> {
  return (await db.rails.deleteMany({ _id: railId, providerId })) > 0;
}

/** TESTED to ACTIVE; null when the rail is no longer TESTED. */
export function activateRail(db: RouterDb, railId: string, at: string): Promise<Rail | null> {
  return db.rails.findOneAndUpdate(
    { _id: railId, status: 'TESTED' },
    { $set: { status: 'ACTIVE', updatedAt: at } },
  );
}

const BREAKER_ATTEMPTS = 5;

/**
 * Applies `change` to a rail's breaker as a compare-and-set on `breakerRev`, re-reading on a
 * lost race. Returns the rail after the change, or null if the rail is gone or `change`
 * declined (returned null) on the current state.
 */
export async function updateBreaker(
  db: RouterDb,
  railId: string,
  change: (state: BreakerState) => BreakerState | null,
): Promise<Rail | null> {
  for (let attempt = 0; attempt < BREAKER_ATTEMPTS; attempt += 1) {
    const rail = await findRail(db, railId);
    if (!rail) return null;
    const next = change(rail.breaker);
    if (!next) return null;
    const updated = await db.rails.findOneAndUpdate(
      { _id: railId, breakerRev: rail.breakerRev },
      { $set: { breaker: next, breakerRev: rail.breakerRev + 1 } },
    );
    if (updated) return updated;
  }
  throw new Error(`breaker of rail ${railId} kept changing under us`);
}
