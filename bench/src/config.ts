/** Load settings of one run; every scenario uses the same ones so their numbers compare. */
export type BenchConfig = {
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  /** Upper bound of requests per scenario, so a very fast target cannot run away. */
  maxRequests: number;
  /** Payments created before the retrieve scenario, read round-robin. */
  retrieveTokens: number;
};

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  return {
    durationSeconds: positiveInteger(env, 'BENCH_DURATION_S', 10),
    warmupSeconds: positiveInteger(env, 'BENCH_WARMUP_S', 2, 0),
    connections: positiveInteger(env, 'BENCH_CONNECTIONS', 16),
    maxRequests: positiveInteger(env, 'BENCH_MAX_REQUESTS', 200_000),
    retrieveTokens: positiveInteger(env, 'BENCH_RETRIEVE_TOKENS', 200),
  };
}
