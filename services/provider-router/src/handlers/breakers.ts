import type { BreakerState } from '../domain/breaker.js';
import type { Rail } from '../domain/rail.js';
import type { RouterDeps } from './deps.js';

const ATTEMPTS = 5;

/**
 * Applies `change` to a rail's breaker as a compare-and-set on `breakerRev`, re-reading on a
 * lost race. Returns the rail after the change, or null if the rail is gone or `change`
 * declined (returned null) on the current state.
 */
export async function updateBreaker(
  deps: RouterDeps,
  railId: string,
  change: (state: BreakerState) => BreakerState | null,
): Promise<Rail | null> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const rail = await deps.db.rails.findOne({ _id: railId });
    if (!rail) return null;
    const next = change(rail.breaker);
    if (!next) return null;
    const updated = await deps.db.rails.findOneAndUpdate(
      { _id: railId, breakerRev: rail.breakerRev },
      { $set: { breaker: next, breakerRev: rail.breakerRev + 1 } },
    );
    if (updated) return updated;
  }
  throw new Error(`breaker of rail ${railId} kept changing under us`);
}
