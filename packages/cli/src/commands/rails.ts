import { InvalidArgumentError, type Command } from 'commander';
import { emit } from '../output.js';
import { list, wantsJson, type Context } from '../context.js';

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

const show = (value: unknown) => JSON.stringify(value, null, 2);

// Number('soon') would be sent as null and refused far from its cause; refuse it here, by name.
function integer(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('must be an integer.');
  return Number(value);
}

/** A provider's rails, driven with its own API key (`--provider-key` or MMP_PROVIDER_KEY). */
export function registerRailCommands(program: Command, ctx: Context): void {
  const rails = program.command('rails').description("A provider's rails (uses the provider API key)");
  const withKey = (name: string, description: string) =>
    rails
      .command(name)
      .description(description)
      .option('--provider-key <key>', 'provider API key sk_… (default: MMP_PROVIDER_KEY)');

  withKey('create', 'Create a rail; a webhook rail prints its whsec_ secret once')
    .requiredOption('--transport <transport>', 'webhook or pull')
    .option('--endpoint <url>', 'HTTPS endpoint of a webhook rail')
    .requiredOption('--networks <list>', 'e.g. ORANGE_MONEY,MTN_MOMO', list)
    .requiredOption('--countries <list>', 'e.g. CM', list)
    .requiredOption('--currencies <list>', 'e.g. XAF', list)
    .option('--environment <env>', 'sandbox or live', 'sandbox')
    .option('--priority <n>', 'lower is tried first', integer)
    .option('--supports-payout', 'the rail executes payouts too')
    .action(async (options: RailOptions, command: Command) => {
      const rail = await ctx.provider(options.providerKey).request('POST', '/v1/provider/rails', {
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
      emit(wantsJson(command), rail, () => show(rail));
    });

  withKey('list', 'List rails').action(async (options: { providerKey?: string }, command: Command) => {
    const result = await ctx.provider(options.providerKey).request('GET', '/v1/provider/rails');
    emit(wantsJson(command), result, () => show(result));
  });

  for (const [name, description] of [
    ['test', 'Send a signed health.check to the rail (PENDING → TESTED on success)'],
    ['activate', 'Activate a TESTED rail (a live rail also needs certification)'],
  ] as const) {
    withKey(name, description)
      .argument('<railId>')
      .action(async (railId: string, options: { providerKey?: string }, command: Command) => {
        const result = await ctx
          .provider(options.providerKey)
          .request('POST', `/v1/provider/rails/${encodeURIComponent(railId)}/${name}`);
        emit(wantsJson(command), result, () => show(result));
      });
  }
}
