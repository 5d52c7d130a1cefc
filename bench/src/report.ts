import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { BenchConfig } from './config.js';
import type { ScenarioResult } from './load.js';

export type ScenarioFailure = { name: string; failed: string };
export type ScenarioOutcome = ScenarioResult | ScenarioFailure;

function isFailed(outcome: ScenarioOutcome): outcome is ScenarioFailure {
  return 'failed' in outcome;
}

/** autocannon measures whole milliseconds; 0 means under one. */
function milliseconds(value: number): string {
  return value === 0 ? '<1' : String(value);
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

/**
 * The baseline's 2xx/s: the mean of its runs before and after the system's scenarios, so
 * that a machine getting busier or quieter during the run shows as a gap between the two.
 */
export function baselineRate(outcomes: ScenarioOutcome[]): number | undefined {
  const runs = outcomes.filter((o): o is ScenarioResult => !isFailed(o) && o.name.startsWith('baseline'));
  return runs.length ? runs.reduce((sum, o) => sum + o.requestsPerSecond, 0) / runs.length : undefined;
}

/** The table printed at the end: throughput, latency and failures, each next to the baseline. */
export function formatTable(outcomes: ScenarioOutcome[]): string {
  const baseline = baselineRate(outcomes);
  const header = ['scenario', '2xx/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'vs baseline'];
  const rows = outcomes.map((o) =>
    isFailed(o)
      ? [o.name, 'FAILED', '', '', '', '', '']
      : [
          o.name,
          o.requestsPerSecond.toFixed(0),
          milliseconds(o.latencyMs.p50),
          milliseconds(o.latencyMs.p99),
          String(o.errors),
          String(o.non2xx),
          baseline ? `${((o.requestsPerSecond / baseline) * 100).toFixed(1)} %` : 'n/a',
        ],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => pad(c, widths[i]!, i > 0)).join('  ');
  const failures = outcomes.filter(isFailed).map((o) => `  ${o.name}: ${o.failed}`);
  return [
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    ...(failures.length ? ['', 'failed:', ...failures] : []),
  ].join('\n');
}

/** Writes the run to bench/results/<timestamp>.json (git-ignored) and returns the path. */
export function writeResults(
  directory: string,
  config: BenchConfig,
  outcomes: ScenarioOutcome[],
  startedAt: Date,
): string {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: process.platform,
  };
  writeFileSync(
    file,
    `${JSON.stringify({ startedAt: startedAt.toISOString(), config, machine, scenarios: outcomes }, null, 2)}\n`,
  );
  return file;
}
