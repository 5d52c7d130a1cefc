import autocannon from 'autocannon';
import type { BenchConfig } from './config.js';
import { cpuBetween, settle, snapshotCpu } from './proc.js';
import type { Spread } from './stats.js';

/** One kind of traffic: a URL and, per request, the exact method, path, headers and body. */
export type Scenario = {
  name: string;
  /** What the number means, printed under the table. */
  measures: string;
  url: string;
  nextRequest: () => autocannon.Request;
};

export type ScenarioResult = {
  name: string;
  measures: string;
  /** Every answered request, whatever its status. */
  requests: number;
  successes: number;
  /** 2xx answers per second of measured time: failures never count as throughput. */
  requestsPerSecond: number;
  /** Of 2xx answers only, in whole milliseconds (autocannon's resolution). */
  latencyMs: Spread;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** Measured from autocannon's own start and finish, not its whole-second duration. */
  elapsedSeconds: number;
  /**
   * CPU time of every process of the system (services and nats-server) per 2xx answer, from
   * the start of the measurement until the system is quiet again (see settle()).
   */
  cpuMsPerRequest?: number;
  /** How long the system took after the load to handle what the requests caused. */
  settleSeconds?: number;
  /** CPU milliseconds each of those processes used during the measurement. */
  cpuMsByProcess?: Record<string, number>;
};

function run(scenario: Scenario, config: BenchConfig, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: scenario.url,
    connections: config.connections,
    duration: seconds,
    timeout: 10,
    // autocannon reuses a request's object between calls; a fresh one each time keeps bodies unique.
    requests: [{ setupRequest: (request) => ({ ...request, ...scenario.nextRequest() }) }],
  });
}

function statusCodes(result: autocannon.Result): Record<string, number> {
  return Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]),
  );
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Warms the JIT and connection pools first, then measures for the configured time, with no
 * cap on requests; the warm-up numbers are dropped. `cpuPids` are the processes whose CPU
 * time the operation costs: the system's for a scenario, the bare server's for the baseline.
 */
export async function measure(
  scenario: Scenario,
  config: BenchConfig,
  cpuPids: Record<string, number> = {},
): Promise<ScenarioResult> {
  const measuresCpu = Object.keys(cpuPids).length > 0;
  if (config.warmupSeconds > 0) await run(scenario, config, config.warmupSeconds);
  // The work behind the API (events, consumers, outbox marks) belongs to the requests that
  // caused it: counted from a quiet system until it is quiet again.
  if (measuresCpu) await settle(cpuPids);
  const before = snapshotCpu(cpuPids);
  const result = await run(scenario, config, config.durationSeconds);
  const settledMs = measuresCpu ? await settle(cpuPids) : 0;
  const cpu = cpuBetween(before, snapshotCpu(cpuPids));
  const elapsedSeconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  const successes = result['2xx'];
  const cpuTotal = Object.values(cpu).reduce((sum, ms) => sum + ms, 0);
  return {
    name: scenario.name,
    measures: scenario.measures,
    requests: result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'],
    successes,
    requestsPerSecond: round(successes / elapsedSeconds, 1),
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.average,
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes: statusCodes(result),
    elapsedSeconds: round(elapsedSeconds, 3),
    ...(measuresCpu && {
      cpuMsPerRequest: successes > 0 ? round(cpuTotal / successes, 4) : undefined,
      settleSeconds: round(settledMs / 1000, 1),
      cpuMsByProcess: Object.fromEntries(Object.entries(cpu).map(([name, ms]) => [name, Math.round(ms)])),
    }),
  };
}
