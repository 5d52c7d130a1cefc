import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { CliError, type Client } from '../client.js';
import { emit, table } from '../output.js';
import { wantsJson, type Context } from '../context.js';

type CaseResult = {
  number: number;
  name: string;
  status: string;
  observed: string | null;
  latencyMs: number | null;
  finishedAt: string | null;
};
type Run = {
  id: string;
  railId: string;
  status: string;
  kind: string;
  badge: string | null;
  channel: { network: string; country: string; currency: string };
  summary: { total: number; passed: number; failed: number };
  cases: CaseResult[];
  durationMs: number | null;
};

type CertifyOptions = {
  providerKey?: string;
  provider?: string;
  case?: number;
  junit?: string;
  network?: string;
  country?: string;
  currency?: string;
};

const POLL_MS = 500;

function caseNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 17)
    throw new InvalidArgumentError('must be a case number from 1 to 17.');
  return Number(value);
}

const ms = (value: number | null) => (value === null ? '-' : `${value} ms`);
const short = (text: string | null, max = 80) =>
  !text ? '-' : text.length > max ? `${text.slice(0, max - 1)}…` : text;

function progressLine(result: CaseResult): string {
  return `case ${String(result.number).padStart(2)}  ${result.status.padEnd(6)}  ${result.name} (${ms(result.latencyMs)})`;
}

function summary(run: Run): string {
  const rows = [
    ['#', 'case', 'result', 'latency', 'observed'],
    ...run.cases.map((result) => [
      result.number,
      result.name,
      result.status,
      ms(result.latencyMs),
      short(result.observed),
    ]),
  ];
  const channel = `${run.channel.network} ${run.channel.country} ${run.channel.currency}`;
  const badge =
    run.badge === 'CERTIFIED'
      ? `the channel ${channel} is CERTIFIED`
      : run.badge === 'UNCERTIFIED'
        ? `the channel ${channel} is not certified`
        : 'a single-case run never changes the badge';
  return [
    table(rows),
    '',
    `Run ${run.id} ${run.status}: ${run.summary.passed}/${run.summary.total} cases passed in ${ms(run.durationMs)}; ${badge}.`,
  ].join('\n');
}

/**
 * `mmp certify <railId>`: a full certification run of a sandbox rail (or, with --case, one
 * case again), a progress line per finished case, then the summary; exit 0 only when the run
 * passed. A provider uses its key; an operator names the provider with --provider.
 */
export function registerCertifyCommand(program: Command, ctx: Context): void {
  program
    .command('certify')
    .description('Run the certification of a sandbox rail; exits 0 only when every case passed')
    .argument('<railId>')
    .option('--provider-key <key>', 'provider API key sk_… (default: MMP_PROVIDER_KEY)')
    .option('--provider <id>', 'operators: the provider, with the admin token instead of its key')
    .option('--case <n>', "re-run one case of the rail's latest run (never changes the badge)", caseNumber)
    .option('--network <network>', "the channel's network (default: the rail's first)")
    .option('--country <country>', "the channel's country (default: the rail's first)")
    .option('--currency <currency>', "the channel's currency (default: the rail's first)")
    .option('--junit <file>', 'also write the JUnit XML report to this file')
    .action(async (railId: string, options: CertifyOptions, command: Command) => {
      const json = wantsJson(command);
      const client: Client = options.provider ? ctx.admin : ctx.provider(options.providerKey);
      const base = options.provider
        ? `/v1/admin/providers/${encodeURIComponent(options.provider)}`
        : '/v1/provider';
      const railRuns = `${base}/rails/${encodeURIComponent(railId)}/certification-runs`;
      let run: Run;
      if (options.case === undefined) {
        run = await client.request<Run>('POST', railRuns, {
          body: { network: options.network, country: options.country, currency: options.currency },
        });
      } else {
        const { data } = await client.request<{ data: Run[] }>('GET', railRuns);
        const latest = data[0];
        if (!latest)
          throw new CliError(`rail ${railId} has no certification run yet: run mmp certify ${railId} first.`);
        run = await client.request<Run>(
          'POST',
          `${base}/certification-runs/${encodeURIComponent(latest.id)}/cases/${options.case}/rerun`,
        );
      }
      if (!json)
        process.stdout.write(
          `Certification run ${run.id} of rail ${railId} (${run.summary.total} case(s))\n`,
        );
      const shown = new Set<number>();
      for (;;) {
        for (const result of run.cases) {
          if (result.finishedAt && !shown.has(result.number)) {
            shown.add(result.number);
            if (!json) process.stdout.write(`${progressLine(result)}\n`);
          }
        }
        if (run.status !== 'RUNNING') break;
        await sleep(POLL_MS);
        run = await client.request<Run>('GET', `${base}/certification-runs/${encodeURIComponent(run.id)}`);
      }
      if (options.junit) {
        const xml = await client.request<string>(
          'GET',
          `${base}/certification-runs/${encodeURIComponent(run.id)}/junit`,
          { text: true },
        );
        writeFileSync(options.junit, xml);
      }
      emit(json, run, () => summary(run));
      if (run.status !== 'PASSED') process.exitCode = 1;
    });
}
