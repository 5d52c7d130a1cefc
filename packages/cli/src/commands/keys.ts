import type { Command } from 'commander';
import { emit, table } from '../output.js';
import { list, wantsJson, type Context } from '../context.js';

type Key = {
  id: string;
  kind: string;
  livemode: boolean;
  hint: string;
  scopes: string[];
  expiresAt: string | null;
  revokedAt: string | null;
  key?: string;
};

const keysPath = (projectId: string) => `/v1/admin/projects/${encodeURIComponent(projectId)}/keys`;
const showIssued = (key: Key) =>
  `Key ${key.id} (${key.livemode ? 'live' : 'test'} ${key.kind}), shown this once:\n  ${key.key}`;

export function registerKeyCommands(program: Command, ctx: Context): void {
  const keys = program.command('keys').description('API keys of a project');

  keys
    .command('create')
    .description('Create a key (shown once)')
    .requiredOption('--project <id>', 'project id')
    .option('--kind <kind>', 'secret or publishable', 'secret')
    .option('--live', 'a live key (default: test)')
    .option('--scopes <list>', 'comma-separated scopes (default: all the kind allows)', list)
    .option('--expires-at <iso>', 'expiry, ISO 8601 with offset')
    .action(
      async (
        options: { project: string; kind: string; live?: boolean; scopes?: string[]; expiresAt?: string },
        command: Command,
      ) => {
        const key = await ctx.admin.request<Key>('POST', keysPath(options.project), {
          body: {
            kind: options.kind,
            livemode: options.live === true,
            scopes: options.scopes,
            expiresAt: options.expiresAt,
          },
        });
        emit(wantsJson(command), key, () => showIssued(key));
      },
    );

  keys
    .command('list')
    .description("List a project's keys (hints only)")
    .requiredOption('--project <id>', 'project id')
    .action(async (options: { project: string }, command: Command) => {
      const { data } = await ctx.admin.request<{ data: Key[] }>('GET', keysPath(options.project));
      emit(wantsJson(command), data, () =>
        table([
          ['ID', 'ENV', 'KIND', 'HINT', 'STATUS', 'SCOPES'],
          ...data.map((k) => [
            k.id,
            k.livemode ? 'live' : 'test',
            k.kind,
            k.hint,
            k.revokedAt
              ? 'revoked'
              : k.expiresAt && Date.parse(k.expiresAt) <= Date.now()
                ? 'expired'
                : 'active',
            k.scopes.join(','),
          ]),
        ]),
      );
    });

  keys
    .command('roll')
    .description('Replace a key; the old one stops working at once')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--key <id>', 'key id')
    .option('--expires-at <iso>', 'expiry of the new key')
    .action(async (options: { project: string; key: string; expiresAt?: string }, command: Command) => {
      const key = await ctx.admin.request<Key>(
        'POST',
        `${keysPath(options.project)}/${encodeURIComponent(options.key)}/roll`,
        {
          body: { expiresAt: options.expiresAt },
        },
      );
      emit(wantsJson(command), key, () => showIssued(key));
    });

  keys
    .command('revoke')
    .description('Revoke a key at once')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--key <id>', 'key id')
    .action(async (options: { project: string; key: string }, command: Command) => {
      const key = await ctx.admin.request<Key>(
        'POST',
        `${keysPath(options.project)}/${encodeURIComponent(options.key)}/revoke`,
      );
      emit(wantsJson(command), key, () => `Key ${key.id} (${key.hint}) revoked.`);
    });
}
