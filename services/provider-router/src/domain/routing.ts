import { admitsOrder, breakerVerdict, type BreakerConfig } from './breaker.js';
import { certifiedFor } from './certification.js';
import type { Rail, RailEnvironment } from './rail.js';

/** What an order needs from a rail; `payout`: a payout.execute order, on a payout-capable rail. */
export type RouteCriteria = {
  environment: RailEnvironment;
  network: string;
  currency: string;
  country: string;
  payout?: boolean;
  /** A rail to try first when it is eligible (a refund's: the rail that collected the payment). */
  preferredRailId?: string | null;
};

/** A rail that served the payment but was passed over, and why (e.g. its breaker is open). */
export type SkippedRail = { railId: string; reason: string };

export type RouteChoice =
  | { rail: Rail; halfOpenTrial: boolean; reason: string; skipped: SkippedRail[] }
  | { rail: null; reason: string; skipped: SkippedRail[] };

export function environmentOf(livemode: boolean): RailEnvironment {
  return livemode ? 'live' : 'sandbox';
}

function serves(rail: Rail, criteria: RouteCriteria): boolean {
  return (
    rail.status === 'ACTIVE' &&
    rail.inService !== false &&
    rail.environment === criteria.environment &&
    (rail.networks as string[]).includes(criteria.network) &&
    (rail.currencies as string[]).includes(criteria.currency) &&
    rail.countries.includes(criteria.country) &&
    (!criteria.payout || rail.supportsPayout)
  );
}

/**
 * Certified rails first, then the lower `priority` number (like MX preferences: 0 is the
 * most preferred), then the older rail, so the order is total and stable.
 */
export function byPreference(a: Rail, b: Rail): number {
  if (a.certified !== b.certified) return a.certified ? -1 : 1;
  if (a.priority !== b.priority) return a.priority - b.priority;
  return a.createdAt.localeCompare(b.createdAt) || a._id.localeCompare(b._id);
}

/**
 * Picks the rail for an order among `rails`: eligible ones in preference order, skipping
 * rails already tried for this order and rails whose breaker does not admit an order now.
 * The reason says what was chosen and what was skipped, for the order's decision log.
 */
export function chooseRail(
  rails: Rail[],
  criteria: RouteCriteria,
  options: { exclude: string[]; now: number; breaker: BreakerConfig },
): RouteChoice {
  const preferred = (rail: Rail) => Number(rail._id === criteria.preferredRailId);
  // "Certified" is the badge of the order's channel on the rail, not of every channel it serves.
  const eligible = rails
    .filter((rail) => serves(rail, criteria))
    .map((rail) => ({ ...rail, certified: certifiedFor(rail, criteria) }))
    .sort((a, b) => preferred(b) - preferred(a) || byPreference(a, b));
  const skipped: SkippedRail[] = [];
  const skippedText = () => skipped.map((skip) => `${skip.railId} ${skip.reason}`).join('; ');
  for (const rail of eligible) {
    if (options.exclude.includes(rail._id)) {
      skipped.push({ railId: rail._id, reason: 'already tried' });
      continue;
    }
    const verdict = breakerVerdict(rail.breaker, options.now, options.breaker);
    if (!admitsOrder(rail.breaker, options.now, options.breaker)) {
      skipped.push({
        railId: rail._id,
        reason: verdict === 'open' ? 'circuit breaker open' : 'circuit breaker half-open, trial in flight',
      });
      continue;
    }
    const halfOpenTrial = verdict === 'half-open';
    const why = [
      rail._id === criteria.preferredRailId ? 'preferred rail' : null,
      `${rail.certified ? 'certified' : 'not certified'}, priority ${rail.priority}`,
      halfOpenTrial ? 'half-open trial after breaker cooldown' : null,
      skipped.length ? `skipped: ${skippedText()}` : null,
    ].filter(Boolean);
    return {
      rail,
      halfOpenTrial,
      reason: `chose rail ${rail._id} of provider ${rail.providerId} (${why.join('; ')})`,
      skipped,
    };
  }
  const wanted = `${criteria.environment} ${criteria.network} ${criteria.currency} ${criteria.country}${criteria.payout ? ' with payouts' : ''}`;
  if (eligible.length === 0) return { rail: null, reason: `no ACTIVE rail serves ${wanted}`, skipped };
  return { rail: null, reason: `no usable rail for ${wanted}: ${skippedText()}`, skipped };
}
