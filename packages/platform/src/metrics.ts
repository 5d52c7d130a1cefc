import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A service's metrics registry (`context.metrics`), for services that do not depend on prom-client. */
export type MetricsRegistry = Registry;

/**
 * How often the event-loop delay histogram (`nodejs_eventloop_lag_*`) samples. prom-client's
 * 10 ms is a timer that wakes an idle service a hundred times a second: 5 ms of CPU a second
 * in each, most of what eight quiet services cost. Sampled every 100 ms, a 15 s scrape still
 * holds 150 readings, and a loop blocked for longer than that is caught whole.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * One registry per service, every series labelled with `service`. Names are
 * `mmp_<what>_<unit>` in Prometheus style; README ("Metrics") lists what an operator
 * alerts on.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

// A component may be built twice on one registry (two outboxes, a rebuilt consumer): the
// second asks for the series the first made rather than registering it again.
function reuse<M>(registry: Registry, name: string, make: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? make();
}

export function counter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  return reuse(registry, name, () => new Counter({ name, help, labelNames, registers: [registry] }));
}

export function histogram<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Histogram<L> {
  return reuse(
    registry,
    name,
    () =>
      new Histogram({
        name,
        help,
        labelNames,
        // From a local round trip to a provider or merchant that takes its whole timeout.
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
        registers: [registry],
      }),
  );
}

export function gauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
  collect?: (this: Gauge<L>) => Promise<void> | void,
): Gauge<L> {
  return reuse(registry, name, () => new Gauge({ name, help, labelNames, registers: [registry], collect }));
}

/** `2xx`, `4xx`, `5xx`: the label alerts group statuses by. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/**
 * Runs one pass of a background loop (expiry, sweep, relay) and counts it as
 * `mmp_loop_runs_total{loop, outcome}`, so an operator sees a loop that stopped running
 * or keeps failing. The error is rethrown for the loop's own handling.
 */
export async function countLoopRun<T>(
  registry: Registry | undefined,
  loop: string,
  pass: () => Promise<T>,
): Promise<T> {
  const runs = registry
    ? counter(registry, 'mmp_loop_runs_total', 'Passes of background loops, by outcome.', ['loop', 'outcome'])
    : undefined;
  try {
    const result = await pass();
    runs?.inc({ loop, outcome: 'ok' });
    return result;
  } catch (error) {
    runs?.inc({ loop, outcome: 'error' });
    throw error;
  }
}
