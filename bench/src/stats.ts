/** The value at percentile `p` of ascending `sorted` (nearest rank); 0 when there is none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Milliseconds at a few percentiles, the largest and the mean. */
export type Spread = { p50: number; p90: number; p99: number; max: number; mean: number };

/** The spread of `values` (in any order), to a tenth of a millisecond; zeros when there are none. */
export function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? 0),
    mean: round(sorted.reduce((sum, ms) => sum + ms, 0) / (sorted.length || 1)),
  };
}

/** Each process's CPU milliseconds per operation served; 0 each when nothing was served. */
export function cpuMsEach(cpuMsByProcess: Record<string, number>, served: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(cpuMsByProcess).map(([name, ms]) => [name, served > 0 ? ms / served : 0]),
  );
}
