import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from '../client.js';
import type { ProviderView, ReconciliationReport } from '@mmp/protocol';
import { emit, summary, table } from '../output.js';
import { commandsOf, wantsJson, type Context } from '../context.js';

function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${path} as JSON: ${(error as Error).message}`);
  }
}

const REPORT_SECTIONS = [
  'matched',
  'settledWithoutOrder',
  'orderWithoutSettlement',
  'amountMismatch',
  'completedAfterExpiry',
  'secondOutcome',
] as const;

/** The day's counts, then each line that needs a look (matched ones are only counted). */
function reconciliation(report: ReconciliationReport): string {
  const lines = [
    `Reconciliation of ${report.providerId} on ${report.date} (${report.livemode ? 'live' : 'sandbox'}): ${report.summary.orders} order(s)`,
    table(REPORT_SECTIONS.map((section) => [`  ${section}`, report.summary[section]])),
  ];
  for (const section of REPORT_SECTIONS.filter((s) => s !== 'matched')) {
    for (const line of report[section]) lines.push('', `${section}:`, summary(line));
  }
  return lines.join('\n');
}

/** Providers, their mappings, reconciliation and the customers projection: operator commands. */
export function registerProviderCommands(program: Command, ctx: Context): void {
  const provider = program.command('provider').description('Providers (operators, banks, aggregators)');
  const providerCommand = commandsOf(provider);
  // Every command on one provider names it the same way.
  const ofOneProvider = (group: Command) =>
    commandsOf(group, (command) => command.requiredOption('--provider <id>', 'provider id'));
  const onProvider = ofOneProvider(provider);
  const providerPath = (providerId: string, action: string) =>
    `/v1/admin/providers/${encodeURIComponent(providerId)}${action}`;

  providerCommand('create', 'Create a provider; prints its API key and signing secret once')
    .requiredOption('--name <name>', 'provider name')
    .action(async (options: { name: string }, command: Command) => {
      const created = await ctx.admin.request<{
        id: string;
        name: string;
        apiKey: string;
        signingSecret: string;
      }>('POST', '/v1/admin/providers', { body: { name: options.name } });
      emit(wantsJson(command), created, () =>
        [
          `Provider ${created.id} (${created.name}), shown this once:`,
          `  API key         ${created.apiKey}`,
          `  signing secret  ${created.signingSecret}`,
        ].join('\n'),
      );
    });

  providerCommand('list', 'List providers').action(async (_options: unknown, command: Command) => {
    const result = await ctx.admin.request<{ data: ProviderView[] }>('GET', '/v1/admin/providers');
    emit(wantsJson(command), result, () =>
      table([
        ['ID', 'NAME', 'SIGNING SECRET', 'MAPPING', 'CREATED'],
        ...result.data.map((p) => [
          p.id,
          p.name,
          p.signingSecretHint,
          p.mappingConfigured ? 'yes' : 'no',
          p.createdAt,
        ]),
      ]),
    );
  });

  onProvider('roll-key', "Roll a provider's API key; the old one stops working at once").action(
    async (options: { provider: string }, command: Command) => {
      const rolled = await ctx.admin.request<{ apiKey: string }>(
        'POST',
        providerPath(options.provider, '/keys/roll'),
      );
      emit(wantsJson(command), rolled, () => `New API key (shown this once): ${rolled.apiKey}`);
    },
  );

  onProvider(
    'roll-signing-secret',
    "Roll a provider's settlement signing secret; prints the new one once, the old one stops verifying at once",
  ).action(async (options: { provider: string }, command: Command) => {
    const rolled = await ctx.admin.request<{ id: string; signingSecret: string }>(
      'POST',
      providerPath(options.provider, '/roll-signing-secret'),
    );
    emit(
      wantsJson(command),
      rolled,
      () => `New signing secret of ${rolled.id} (shown this once): ${rolled.signingSecret}`,
    );
  });

  const mapping = ofOneProvider(provider.command('mapping').description('Proprietary payload mappings'));

  mapping('get', "Show a provider's mapping").action(
    async (options: { provider: string }, command: Command) => {
      const result = await ctx.admin.request<{ providerId: string; mapping: unknown }>(
        'GET',
        providerPath(options.provider, '/mapping'),
      );
      emit(wantsJson(command), result, () =>
        result.mapping === null
          ? `${result.providerId} has no mapping: its settlements must be protocol v1.`
          : JSON.stringify(result.mapping, null, 2),
      );
    },
  );

  mapping('set', "Set a provider's mapping from a JSON file")
    .requiredOption('--file <path>', 'mapping.json')
    .action(async (options: { provider: string; file: string }, command: Command) => {
      const result = await ctx.admin.request('PUT', providerPath(options.provider, '/mapping'), {
        body: readJsonFile(options.file),
      });
      emit(wantsJson(command), result, () => `Mapping of ${options.provider} set.`);
    });

  program
    .command('reconcile')
    .description('Orders against settlements of one provider, environment and day')
    .requiredOption('--provider <id>', 'provider id')
    .requiredOption('--date <YYYY-MM-DD>', 'day (UTC)')
    .option('--live', 'live environment (default: sandbox)')
    .action(async (options: { provider: string; date: string; live?: boolean }, command: Command) => {
      const result = await ctx.admin.request<ReconciliationReport>('GET', '/v1/admin/reconciliation', {
        query: {
          providerId: options.provider,
          date: options.date,
          livemode: options.live ? 'true' : 'false',
        },
      });
      emit(wantsJson(command), result, () => reconciliation(result));
    });

  program
    .command('customers')
    .description('Customer profiles')
    .command('rebuild')
    .description('Rebuild the customer profiles from the event stream')
    .action(async (_options: unknown, command: Command) => {
      const result = await ctx.admin.request('POST', '/v1/admin/customers/rebuild');
      emit(wantsJson(command), result, () => summary(result));
    });
}
