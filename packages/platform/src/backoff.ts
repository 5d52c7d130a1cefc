/**
 * The one backoff of the system: `baseMs`, then doubling with each attempt, capped at
 * `maxMs`, plus up to `jitter` (a share of the delay) at random so that retries of many
 * callers do not arrive together.
 */
export function backoffDelay(
  attempt: number,
  options: { baseMs: number; maxMs?: number; jitter?: number },
  random: () => number = Math.random,
): number {
  const delay = Math.min(
    options.maxMs ?? Number.POSITIVE_INFINITY,
    options.baseMs * 2 ** Math.max(0, attempt),
  );
  return Math.round(delay * (1 + (options.jitter ?? 0.2) * random()));
}
