/**
 * The system's two shapes under test: every service in one process (as the end-to-end
 * tests run it), or each in its own process from its build (as `pnpm start` runs them).
 */
export const MODES = ['in-process', 'processes'] as const;
export type Mode = (typeof MODES)[number];

export const BENCH_RUNS = ['create', 'retrieve', 'settlement', 'flow'] as const;
export type BenchRun = (typeof BENCH_RUNS)[number];

/** Load settings of one run; every scenario uses the same ones so their numbers compare. */
export type BenchConfig = {
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  /** Payments created before the retrieve scenario, read round-robin. */
  retrieveTokens: number;
  /** The system's shapes to measure, in this order. */
  modes: Mode[];
  /** What to run in each mode (all by default): one alone, to profile it. */
  runs: BenchRun[];
  /** Full flows started per second, at a fixed rate whatever the system's answers. */
  flowRate: number;
  flowSeconds: number;
  /** How long after the last flow started its stragglers may still finish. */
  flowGraceSeconds: number;
  /** The sandbox provider's pause between two pulls of its orders (its own time, not the system's). */
  sandboxPollMs: number;
  /** Skip the build before the processes mode (when `pnpm build` just ran). */
  skipBuild: boolean;
  /** The services' log level: silent, so logging costs nothing measured, unless a run is diagnosed. */
  logLevel: LogLevel;
};

const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/** The in-process child reads the services' settings from this variable, as JSON. */
export const SYSTEM_ENV_VARIABLE = 'BENCH_SYSTEM_ENV';

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

function modes(raw: string | undefined): Mode[] {
  const list = (raw ?? 'in-process,processes').split(',').map((m) => m.trim());
  for (const mode of list) {
    if (!(MODES as readonly string[]).includes(mode))
      throw new Error(`BENCH_MODES takes ${MODES.join(' and/or ')}, got "${mode}"`);
  }
  return list as Mode[];
}

function runs(raw: string | undefined): BenchRun[] {
  if (raw === undefined || raw.trim() === '') return [...BENCH_RUNS];
  const list = raw.split(',').map((run) => run.trim());
  for (const run of list) {
    if (!(BENCH_RUNS as readonly string[]).includes(run))
      throw new Error(`BENCH_SCENARIOS takes ${BENCH_RUNS.join(', ')}, got "${run}"`);
  }
  return list as BenchRun[];
}

function logLevel(raw: string | undefined): LogLevel {
  if (raw === undefined || raw === '') return 'silent';
  if (!(LOG_LEVELS as readonly string[]).includes(raw))
    throw new Error(`BENCH_LOG_LEVEL takes ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw as LogLevel;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  return {
    durationSeconds: positiveInteger(env, 'BENCH_DURATION_S', 10),
    warmupSeconds: positiveInteger(env, 'BENCH_WARMUP_S', 2, 0),
    connections: positiveInteger(env, 'BENCH_CONNECTIONS', 16),
    retrieveTokens: positiveInteger(env, 'BENCH_RETRIEVE_TOKENS', 200),
    modes: modes(env.BENCH_MODES),
    runs: runs(env.BENCH_SCENARIOS),
    flowRate: positiveInteger(env, 'BENCH_FLOW_RATE', 50),
    flowSeconds: positiveInteger(env, 'BENCH_FLOW_S', 30),
    flowGraceSeconds: positiveInteger(env, 'BENCH_FLOW_GRACE_S', 20),
    sandboxPollMs: positiveInteger(env, 'BENCH_SANDBOX_POLL_MS', 1_000),
    skipBuild: env.BENCH_SKIP_BUILD === '1',
    logLevel: logLevel(env.BENCH_LOG_LEVEL),
  };
}
