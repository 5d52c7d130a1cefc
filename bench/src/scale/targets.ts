import type { ScenarioResult } from '../load.js';
import { table } from '../report.js';
import { cpuMsEach } from '../stats.js';
import type { ListQuery, PortQueries } from './port-queries.js';

/** The list and the search read with a cursor at the middle of the data set, through the API. */
export type CursorQuery = 'listCursor' | 'searchCursor';

/** The customers' list (by spend), search and statistics, through the API; reported, with no target. */
export type CustomersQuery = 'customersList' | 'customersSearch' | 'customersStats';

/** What one data-set size measured; latencies in ms over sequential queries. */
export type SizeResult = Record<ListQuery | CursorQuery | CustomersQuery, Latency> & {
  size: number;
  seedDocsPerSecond: number;
  startMs: Record<string, number>;
  idleRssBytes: Record<string, number>;
  /** The most each service held over its run at this size (VmHWM). */
  peakRssBytes: Record<string, number>;
  deepPage: number;
  createPerSecond: number;
  createP99Ms: number;
  /** Creates not answered 2xx (refused, errors, timeouts): each one makes the others' CPU look dearer. */
  createFailed: number;
  /** CPU milliseconds a create cost each process (the services and nats-server). */
  createCpuMs: Record<string, number>;
  /** The same list and search timed at the store port, in the bench's process. */
  port: PortQueries;
};

/** What a size's create run reports: its rate, p99, the creates that failed and each process's CPU a create. */
export function createFigures(
  create: ScenarioResult,
): Pick<SizeResult, 'createPerSecond' | 'createP99Ms' | 'createFailed' | 'createCpuMs'> {
  return {
    createPerSecond: create.requestsPerSecond,
    createP99Ms: create.latencyMs.p99,
    // autocannon counts a timeout among its errors too.
    createFailed: create.errors + create.non2xx,
    createCpuMs: cpuMsEach(create.cpuMsByProcess ?? {}, create.successes),
  };
}

export type Latency = { p50: number; p99: number; count: number; failed: number; failure?: string };

export type ScaleCheck = { figure: string; measured: string; target: string; met: boolean };

/** Issue 18: a million payments in under 1 GB per service, a list's latency within 2x of its value at 10,000. */
export const SCALE_TARGET = { maxRssBytes: 1024 ** 3, listSlowdown: 2, referenceSize: 10_000 };

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const STORE_SERVICES = ['payments', 'links-checkout', 'customers'];

export function checkScale(results: SizeResult[]): ScaleCheck[] {
  const reference = results.find((r) => r.size === SCALE_TARGET.referenceSize);
  const checks: ScaleCheck[] = [];
  for (const result of results) {
    const label = result.size.toLocaleString('en');
    const [name, peak] = Object.entries(result.peakRssBytes).sort(([, a], [, b]) => b - a)[0] ?? ['none', 0];
    checks.push({
      figure: `${label}: largest service RSS (${name})`,
      measured: mb(peak),
      target: `< ${mb(SCALE_TARGET.maxRssBytes)}`,
      met: peak < SCALE_TARGET.maxRssBytes,
    });
    if (!reference || result === reference) continue;
    // Through the API, the p99 a merchant meets, as issue 18 asks. At the port, the median:
    // reads of 2 to 5 ms timed in the bench's own process, whose p99 over 50 is the odd
    // pause of that process or of a shared host (9.5 ms at 100,000 and 2.2 at a million in
    // one run), while the median says what the engine costs.
    for (const [page, statistic, latency, base] of [
      ['API, first page', 'p99', result.listFirst, reference.listFirst],
      ['API, deepest numbered page', 'p99', result.listDeep, reference.listDeep],
      ['API, cursor at the middle', 'p99', result.listCursor, reference.listCursor],
      ['store port, first page', 'p50', { ...result.port.listFirst, failed: 0 }, reference.port.listFirst],
      [
        'store port, deepest numbered page',
        'p50',
        { ...result.port.listDeep, failed: 0 },
        reference.port.listDeep,
      ],
    ] as const) {
      const limit = base[statistic] * SCALE_TARGET.listSlowdown;
      checks.push({
        figure: `${label}: list ${statistic}, ${page}`,
        measured: `${latency[statistic]} ms${latency.failed ? `, ${latency.failed} failed` : ''}`,
        target: `<= ${limit.toFixed(1)} ms (2x ${base[statistic]})`,
        met: latency.failed === 0 && latency[statistic] <= limit,
      });
    }
  }
  return checks;
}

/** A p99, or how many answers failed when some did. */
const shown = (latency: Latency) =>
  latency.failed ? `${latency.p99} (${latency.failed}/${latency.count} failed)` : String(latency.p99);

export function formatScale(results: SizeResult[]): string {
  const rows = results.map((r) => [
    r.size.toLocaleString('en'),
    String(r.seedDocsPerSecond),
    ...STORE_SERVICES.map((s) => `${mb(r.idleRssBytes[s] ?? 0)}/${mb(r.peakRssBytes[s] ?? 0)}`),
    STORE_SERVICES.map((s) => r.startMs[s] ?? '?').join('/'),
    r.createFailed
      ? `${r.createPerSecond.toFixed(0)} (${r.createFailed} failed)`
      : r.createPerSecond.toFixed(0),
    `${shown(r.listFirst)}/${shown(r.listDeep)}/${shown(r.listCursor)}`,
    `${shown(r.searchFirst)}/${shown(r.searchDeep)}/${shown(r.searchCursor)}`,
    `${r.port.listFirst.p50}/${r.port.listDeep.p50}`,
    `${r.port.searchFirst.p50}/${r.port.searchDeep.p50}`,
    `${shown(r.customersList)}/${shown(r.customersSearch)}/${shown(r.customersStats)}`,
  ]);
  return table(
    [
      'payments',
      'seed docs/s',
      'payments RSS idle/peak',
      'links-checkout RSS',
      'customers RSS',
      'start ms p/l/c',
      'create/s',
      'list p99 first/deep/cursor',
      'search p99 first/deep/cursor',
      'port list p50',
      'port search p50',
      'customers p99 list/search/stats',
    ],
    rows,
  );
}

/**
 * Where a create's CPU goes at each size, process by process: the figure that says which
 * part of the system a larger store slows, where the rate alone says only that it slows.
 */
export function formatCreateCpu(results: SizeResult[]): string {
  const processes = [...new Set(results.flatMap((r) => Object.keys(r.createCpuMs)))];
  const total = (r: SizeResult) => Object.values(r.createCpuMs).reduce((sum, ms) => sum + ms, 0);
  return table(
    ['CPU ms a create, by process', ...results.map((r) => r.size.toLocaleString('en'))],
    [
      ...processes.map((name) => [name, ...results.map((r) => (r.createCpuMs[name] ?? 0).toFixed(3))]),
      ['total', ...results.map((r) => total(r).toFixed(3))],
    ],
  );
}
