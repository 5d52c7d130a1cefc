import autocannon from 'autocannon';
import type { BenchConfig } from './config.js';

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
  /** 2xx answers per second: failures never count as throughput. */
  requestsPerSecond: number;
  /** Of 2xx answers only, in whole milliseconds (autocannon's resolution). */
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  durationSeconds: number;
};

function run(scenario: Scenario, config: BenchConfig, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: scenario.url,
    connections: config.connections,
    duration: seconds,
    maxOverallRequests: config.maxRequests,
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

/** Warms the JIT and connection pools first, then measures; the warm-up numbers are dropped. */
export async function measure(scenario: Scenario, config: BenchConfig): Promise<ScenarioResult> {
  if (config.warmupSeconds > 0) await run(scenario, config, config.warmupSeconds);
  const result = await run(scenario, config, config.durationSeconds);
  const requests = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    name: scenario.name,
    measures: scenario.measures,
    requests,
    requestsPerSecond: Math.round((result['2xx'] / result.duration) * 10) / 10,
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
    durationSeconds: result.duration,
  };
}
