import { InvalidArgumentError, type Command } from 'commander';
import { emit, summary, table } from '../output.js';
import { commandsOf, list, wantsJson, type Context } from '../context.js';

type RailOptions = {
  providerKey?: string;
  transport: string;
  endpoint?: string;
  networks: string[];
  countries: string[];
  currencies: string[];
  environment: string;
  priority?: number;
  supportsPayout?: boolean;
};

type Rail = {
  id: string;
  transport: string;
  endpoint: string | null;
  status: string;
  inService: boolean;
  supportsPayout: boolean;
  environment: string;
  priority: number;
  networks: string[];
  countries: string[];
  currencies: string[];
  secret?: string;
  lastTest: { ok: boolean; reason: string | null; httpStatus: number | null; latencyMs: number } | null;
};

function created(rail: Rail): string {
  const serves = `${rail.networks.join(',')} in ${rail.countries.join(',')} (${rail.currencies.join(',')})`;
  return [
    `Rail ${rail.id} (${rail.transport}, ${rail.environment}, priority ${rail.priority}) serves ${serves}; it is ${rail.status}.`,
    ...(rail.secret
      ? [`  webhook secret  ${rail.secret}  (shown this once: the secret your adapter verifies calls with)`]
      : []),
    `Next: mmp rails test ${rail.id}`,
  ].join('\n');
}

/** The verdict of a rail test, first; a failed test is the command's failure too. */
function tested(rail: Rail): string {
  const test = rail.lastTest;
  if (!test?.ok)
    return `Rail ${rail.id} failed its test: ${test?.reason ?? 'no result'}. It is ${rail.status}.`;
  const how = test.httpStatus === null ? '' : ` (HTTP ${test.httpStatus}, ${test.latencyMs} ms)`;
  const next = rail.status === 'TESTED' ? ` Next: mmp rails activate ${rail.id}` : '';
  return `Rail ${rail.id} passed its test${test.reason ? `: ${test.reason}` : ''}${how}. It is ${rail.status}.${next}`;
}

/** One line on where a rail stands after a change: its state, service and routing weight. */
function standing(rail: Rail): string {
  const service = rail.inService ? 'in service' : 'out of service: no new orders';
  const payouts = rail.supportsPayout ? ', payouts' : '';
  const next = rail.status === 'PENDING' ? ` Next: mmp rails test ${rail.id}` : '';
  return `Rail ${rail.id} is ${rail.status}, ${service} (priority ${rail.priority}${payouts}${rail.endpoint ? `, ${rail.endpoint}` : ''}).${next}`;
}

// Number('soon') would be sent as null and refused far from its cause; refuse it here, by name.
function integer(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('must be an integer.');
  return Number(value);
}

/** A provider's rails, driven with its own API key (`--provider-key` or MMP_PROVIDER_KEY). */
export function registerRailCommands(program: Command, ctx: Context): void {
  const withKey = commandsOf(
    program.command('rails').description("A provider's rails (uses the provider API key)"),
    (command) => command.option('--provider-key <key>', 'provider API key sk_… (default: MMP_PROVIDER_KEY)'),
  );
  const path = (railId: string, action = '') => `/v1/provider/rails/${encodeURIComponent(railId)}${action}`;
  /** A call on one rail, its answer printed by `show`; `failed` answers make the command exit 1. */
  const onRail = <T>(
    name: string,
    description: string,
    call: { method: string; action?: string },
    show: (answer: T) => string,
    failed: (answer: T) => boolean = () => false,
  ) =>
    withKey(name, description)
      .argument('<railId>')
      .action(async (railId: string, options: { providerKey?: string }, command: Command) => {
        const answer = await ctx
          .provider(options.providerKey)
          .request<T>(call.method, path(railId, call.action));
        emit(wantsJson(command), answer, () => show(answer));
        if (failed(answer)) process.exitCode = 1;
      });

  withKey('create', 'Create a rail; a webhook rail prints its whsec_ secret once')
    .requiredOption('--transport <transport>', 'webhook or pull')
    .option('--endpoint <url>', 'HTTPS endpoint of a webhook rail')
    .requiredOption('--networks <list>', 'e.g. ORANGE_MONEY,MTN_MOMO', list)
    .requiredOption('--countries <list>', 'e.g. CM', list)
    .requiredOption('--currencies <list>', 'e.g. XAF', list)
    .option('--environment <env>', 'sandbox or live', 'sandbox')
    .option('--priority <n>', 'lower is tried first (default 100; the sandbox rail is 50)', integer)
    .option('--supports-payout', 'the rail executes payouts too')
    .action(async (options: RailOptions, command: Command) => {
      const rail = await ctx.provider(options.providerKey).request<Rail>('POST', '/v1/provider/rails', {
        body: {
          transport: options.transport,
          endpoint: options.endpoint,
          networks: options.networks,
          countries: options.countries,
          currencies: options.currencies,
          environment: options.environment,
          priority: options.priority,
          supportsPayout: options.supportsPayout === true,
        },
      });
      emit(wantsJson(command), rail, () => created(rail));
    });

  withKey('list', 'List rails').action(async (options: { providerKey?: string }, command: Command) => {
    const result = await ctx
      .provider(options.providerKey)
      .request<{ data: (Rail & { certified: boolean })[] }>('GET', '/v1/provider/rails');
    emit(wantsJson(command), result, () =>
      table([
        ['ID', 'TRANSPORT', 'ENV', 'STATUS', 'CERTIFIED', 'PRIORITY', 'NETWORKS', 'LAST TEST'],
        ...result.data.map((r) => [
          r.id,
          r.transport,
          r.environment,
          r.status,
          r.certified ? 'yes' : 'no',
          r.priority,
          r.networks.join(','),
          r.lastTest ? (r.lastTest.ok ? 'ok' : (r.lastTest.reason ?? 'failed')) : '-',
        ]),
      ]),
    );
  });

  onRail<{ id: string; secret: string }>(
    'roll-secret',
    "Roll a webhook rail's whsec_ secret; prints the new one once, the old one stops at once",
    { method: 'POST', action: '/roll-secret' },
    (rolled) => `New webhook secret of rail ${rolled.id} (shown this once): ${rolled.secret}`,
  );
  onRail<unknown>(
    'get',
    'Show a rail: its state, last test and whether it is certified',
    { method: 'GET' },
    summary,
  );
  onRail<Rail>(
    'test',
    'Send a signed health.check to the rail (PENDING → TESTED on success); exits 1 when the test fails',
    { method: 'POST', action: '/test' },
    tested,
    (rail) => !rail.lastTest?.ok,
  );
  onRail<Rail>(
    'activate',
    'Activate a TESTED rail (a live rail also needs certification)',
    { method: 'POST', action: '/activate' },
    (rail) => `Rail ${rail.id} is ${rail.status}.`,
  );

  withKey('update', 'Change a rail: priority, endpoint (back to PENDING until tested again), payout support')
    .argument('<railId>')
    .option('--priority <n>', 'lower is tried first', integer)
    .option('--endpoint <url>', 'new HTTPS endpoint of a webhook rail')
    .option('--supports-payout', 'the rail executes payouts too')
    .option('--no-supports-payout', 'the rail executes no payouts')
    .action(
      async (
        railId: string,
        options: { providerKey?: string; priority?: number; endpoint?: string; supportsPayout?: boolean },
        command: Command,
      ) => {
        const { priority, endpoint, supportsPayout } = options;
        const rail = await ctx
          .provider(options.providerKey)
          .request<Rail>('PATCH', path(railId), { body: { priority, endpoint, supportsPayout } });
        emit(wantsJson(command), rail, () => standing(rail));
      },
    );

  onRail<Rail>(
    'disable',
    'Take a rail out of service: no new orders; orders already out finish',
    { method: 'POST', action: '/disable' },
    standing,
  );
  onRail<Rail>('enable', 'Put a rail back in service', { method: 'POST', action: '/enable' }, standing);
  onRail<{ id: string; deleted: true }>(
    'delete',
    'Delete a rail with no open order (disable it first and let its orders finish)',
    { method: 'DELETE' },
    (deleted) => `Rail ${deleted.id} deleted.`,
  );
}
