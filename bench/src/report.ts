import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { FlowResult } from './flow.js';
import type { IdleWait } from './idle.js';
import type { ScenarioResult } from './load.js';
import { cpuMsEach, type Spread } from './stats.js';
import type { TargetCheck } from './targets.js';

export type ScenarioFailure = { name: string; failed: string };
export type ScenarioOutcome = ScenarioResult | ScenarioFailure;

export function isFailed(outcome: object | undefined): outcome is ScenarioFailure {
  return !!outcome && 'failed' in outcome;
}

/** autocannon measures whole milliseconds; 0 means under one. */
function milliseconds(value: number): string {
  return value === 0 ? '<1' : String(value);
}

/** Columns padded to their widest cell; the first left-aligned, the others right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The baseline's 2xx/s: the mean of its runs before and after, so a changing machine shows as a gap. */
export function baselineRate(runs: ScenarioOutcome[]): number | undefined {
  const measured = runs.filter((o): o is ScenarioResult => !isFailed(o));
  return measured.length
    ? measured.reduce((sum, o) => sum + o.requestsPerSecond, 0) / measured.length
    : undefined;
}

export function formatScenarios(outcomes: ScenarioOutcome[], baseline: number | undefined): string {
  const rows = outcomes.map((o) =>
    isFailed(o)
      ? [o.name, 'FAILED', '', '', '', '', '', '']
      : [
          o.name,
          o.requestsPerSecond.toFixed(0),
          milliseconds(o.latencyMs.p50),
          milliseconds(o.latencyMs.p99),
          String(o.errors),
          String(o.non2xx),
          o.cpuMsPerRequest === undefined ? '' : o.cpuMsPerRequest.toFixed(3),
          baseline ? `${((o.requestsPerSecond / baseline) * 100).toFixed(2)} %` : 'n/a',
        ],
  );
  const failures = outcomes.filter(isFailed).map((o) => `  ${o.name}: ${o.failed}`);
  const header = ['scenario', '2xx/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'CPU ms/req', 'vs baseline'];
  return [table(header, rows), ...(failures.length ? ['failed:', ...failures] : [])].join('\n');
}

const spreadText = ({ p50, p90, p99 }: Spread) => `${p50} / ${p90} / ${p99}`;

/** Cores that `msPerFlow` of CPU keeps busy at the flows' achieved rate. */
const coresAt = (msPerFlow: number, flow: FlowResult) => ((msPerFlow * flow.achievedRate) / 1000).toFixed(2);

/**
 * How much of the machine the flows kept busy: every process of the system (nats-server
 * included) against the machine's cores, where near all of them flows queue for CPU and the
 * latency's tail grows however fast each step is; and the busiest process, since an event
 * loop runs on one core, so one near 1.00 is saturated (as the whole system in one process
 * is) whatever the machine has left.
 */
function machineBusy(flow: FlowResult, cpuMsPerFlow: number): string {
  const [name, ms] = Object.entries(flow.cpuMsByProcess).sort((a, b) => b[1] - a[1])[0] ?? [];
  const busiest =
    name === undefined || ms === undefined
      ? ''
      : ` (the busiest process, ${name}: ${coresAt(ms / flow.finished, flow)})`;
  return `, ${coresAt(cpuMsPerFlow, flow)} of this machine's ${flow.cores} cores at ${flow.achievedRate}/s${busiest}`;
}

export function formatFlow(flow: FlowResult | ScenarioFailure): string {
  if (isFailed(flow)) return `full flow: FAILED: ${flow.failed}`;
  return [
    `full flow at ${flow.ratePerSecond}/s (achieved ${flow.achievedRate}/s): ${flow.finished} of ${flow.started} finished, ` +
      `${flow.failedCalls} failed, ${flow.unfinished} unfinished`,
    `  latency ms: p50 ${flow.latencyMs.p50}  p90 ${flow.latencyMs.p90}  p99 ${flow.latencyMs.p99}  max ${flow.latencyMs.max}` +
      `  (the sandbox long-polls its orders, wait_ms ${flow.sandboxPollMs})`,
    ...(flow.stagesMs
      ? [
          `  stages ms, p50 / p90 / p99: create answered ${spreadText(flow.stagesMs.create)}, ` +
            `pay answered ${spreadText(flow.stagesMs.pay)}, pay to webhook ${spreadText(flow.stagesMs.afterPay)}`,
        ]
      : []),
    `  CPU per flow: ${flow.cpuMsPerFlow?.toFixed(2) ?? 'n/a'} ms` +
      (flow.cpuMsPerFlow === undefined ? '' : machineBusy(flow, flow.cpuMsPerFlow)) +
      (flow.firstFailure ? `\n  first failure: ${flow.firstFailure}` : ''),
  ].join('\n');
}

/** One column of the CPU table: what a scenario or the flow served, and where its CPU went. */
type CpuColumn = { name: string; served: number; cpu: Record<string, number>; msEach?: number };

/**
 * Where each operation's CPU went: every process's milliseconds per 2xx answer (per finished
 * flow for the flow), one column a measured scenario, and the total the scenario table shows
 * ("-" where a process was not measured). A column is named by its scenario up to the route.
 */
export function formatCpuByProcess(outcomes: ScenarioOutcome[], flow?: FlowResult | ScenarioFailure): string {
  const columns: CpuColumn[] = [
    ...outcomes.flatMap((o) =>
      isFailed(o) || !o.cpuMsByProcess
        ? []
        : [{ name: o.name, served: o.successes, cpu: o.cpuMsByProcess, msEach: o.cpuMsPerRequest }],
    ),
    ...(flow && !isFailed(flow)
      ? [{ name: flow.name, served: flow.finished, cpu: flow.cpuMsByProcess, msEach: flow.cpuMsPerFlow }]
      : []),
  ].filter((column) => column.served > 0 && Object.keys(column.cpu).length > 0);
  if (columns.length === 0) return '';
  const processes = [...new Set(columns.flatMap((column) => Object.keys(column.cpu)))];
  const cell = (ms: number | undefined) => (ms === undefined ? '-' : ms.toFixed(3));
  const msEachByColumn = columns.map((column) => cpuMsEach(column.cpu, column.served));
  const rows = processes.map((name) => [name, ...msEachByColumn.map((msEach) => cell(msEach[name]))]);
  rows.push(['total', ...columns.map((column) => cell(column.msEach))]);
  const header = [
    'CPU ms a request or flow, by process',
    ...columns.map((column) => column.name.split(':')[0]!),
  ];
  return table(header, rows);
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/**
 * Idle memory of each process: RSS (what the targets are set on) and PSS, its share of the
 * machine's memory once pages shared between processes (the node binary, about 40 MB of
 * each service's RSS) are divided among them; and RSS idle again after the load.
 */
export type MemoryReadings = {
  idleRss: Record<string, number>;
  startMs?: Record<string, number>;
  idlePss?: Record<string, number>;
  afterLoadRss?: Record<string, number>;
  /** CPU milliseconds a second of each quiet process: its timers and polls. */
  idleCpuMsPerSecond?: Record<string, number>;
};

export function formatMemory({
  idleRss,
  startMs = {},
  idlePss = {},
  afterLoadRss = {},
  idleCpuMsPerSecond = {},
}: MemoryReadings): string {
  const optional = (values: Record<string, number>, name: string, write: (value: number) => string) =>
    values[name] === undefined ? '' : write(values[name]);
  const cpu = (ms: number) => ms.toFixed(1);
  const rows = Object.entries(idleRss).map(([name, bytes]) => [
    name,
    mib(bytes),
    optional(idlePss, name, mib),
    optional(afterLoadRss, name, mib),
    optional(idleCpuMsPerSecond, name, cpu),
    optional(startMs, name, String),
  ]);
  const sum = (values: Record<string, number>) => Object.values(values).reduce((total, b) => total + b, 0);
  const total = (values: Record<string, number>, write: (value: number) => string = mib) =>
    Object.keys(values).length ? write(sum(values)) : '';
  rows.push([
    'total',
    mib(sum(idleRss)),
    total(idlePss),
    total(afterLoadRss),
    total(idleCpuMsPerSecond, cpu),
    '',
  ]);
  return table(
    ['process', 'idle RSS MB', 'idle PSS MB', 'idle RSS after load MB', 'idle CPU ms/s', 'start ms'],
    rows,
  );
}

/** When the idle readings were taken, and which services had not given memory back by then. */
export function formatIdleWaits(waits: { idle: IdleWait; afterLoad?: IdleWait }): string {
  const line = (what: string, after: string, wait: IdleWait) => {
    const late = Object.entries(wait.stillLarge).map(
      ([name, bytes]) => `${name} ${bytes === undefined ? '(no answer)' : `${mib(bytes)} MB`}`,
    );
    const state = !wait.asked
      ? 'a fixed wait: in one process the kit does not watch idle memory'
      : late.length
        ? `the young generation still large in ${late.join(', ')}`
        : 'every service quiet, its young generation given back';
    return `${what} read ${(wait.waitedMs / 1000).toFixed(1)} s after ${after} (${state})`;
  };
  return [
    line('idle RSS', 'the set-up calls', waits.idle),
    ...(waits.afterLoad ? [line('idle RSS after load', 'the load', waits.afterLoad)] : []),
  ].join('\n');
}

export function formatTargets(checks: TargetCheck[]): string {
  const rows = checks.map((c) => [`${c.mode}: ${c.figure}`, c.measured, c.target, c.met ? 'met' : 'MISSED']);
  const met = checks.filter((c) => c.met).length;
  return `${table(['target', 'measured', 'target', ''], rows)}\n${met} of ${checks.length} targets met`;
}

export function machine() {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: process.platform,
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** Writes the run to `<directory>/<prefix>-<timestamp>.json` (git-ignored) and returns the path. */
export function writeResults(directory: string, prefix: string, startedAt: Date, content: object): string {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${prefix}-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ startedAt: startedAt.toISOString(), machine: machine(), ...content }, null, 2)}\n`,
  );
  return file;
}
