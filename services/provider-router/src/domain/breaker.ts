/**
 * Circuit breaker of one rail, as data plus pure functions. `failures` counts recent
 * delivery failures inside the window; `threshold` of them open the breaker for the
 * cooldown; after the cooldown it is half-open: exactly one order (the trial) may go
 * through, its success closes the breaker and its failure opens it again.
 */
export type BreakerState = {
  failures: number[];
  openedAt: number | null;
  /** Order key of the half-open trial in flight, with the time it was let through. */
  trial: { orderKey: string; at: number } | null;
  /**
   * Ids of the latest delivery outcomes already counted, so an outcome redelivered after a
   * crash (or a failed write) between counting it and moving its order is counted once.
   * Absent on breakers stored before it existed.
   */
  learned?: string[];
};

export type BreakerConfig = { threshold: number; windowMs: number; cooldownMs: number };

export type BreakerVerdict = 'closed' | 'open' | 'half-open';

export const CLOSED_BREAKER: BreakerState = { failures: [], openedAt: null, trial: null };

export function breakerVerdict(state: BreakerState, now: number, config: BreakerConfig): BreakerVerdict {
  if (state.openedAt === null) return 'closed';
  if (now < state.openedAt + config.cooldownMs) return 'open';
  return 'half-open';
}

/**
 * Whether a new order may use the rail now. A half-open rail admits one trial; a trial
 * that never got an outcome within a cooldown stops blocking the rail.
 */
export function admitsOrder(state: BreakerState, now: number, config: BreakerConfig): boolean {
  const verdict = breakerVerdict(state, now, config);
  if (verdict === 'closed') return true;
  if (verdict === 'open') return false;
  return state.trial === null || now >= state.trial.at + config.cooldownMs;
}

export function startTrial(state: BreakerState, orderKey: string, now: number): BreakerState {
  return { ...state, trial: { orderKey, at: now } };
}

export function recordFailure(state: BreakerState, now: number, config: BreakerConfig): BreakerState {
  const failures = [...state.failures.filter((at) => at > now - config.windowMs), now];
  if (breakerVerdict(state, now, config) === 'half-open') return { failures, openedAt: now, trial: null };
  if (state.openedAt === null && failures.length >= config.threshold)
    return { failures, openedAt: now, trial: null };
  return { ...state, failures };
}

export function recordSuccess(): BreakerState {
  return CLOSED_BREAKER;
}

/** Far more outcomes than can be awaiting redelivery at once. */
const LEARNED_OUTCOMES = 64;

/** Counts one delivery outcome (by its id) once: null when the breaker already counted it. */
export function learnOnce(
  state: BreakerState,
  outcomeId: string,
  change: (state: BreakerState) => BreakerState,
): BreakerState | null {
  const learned = state.learned ?? [];
  if (learned.includes(outcomeId)) return null;
  return { ...change(state), learned: [...learned, outcomeId].slice(-LEARNED_OUTCOMES) };
}
