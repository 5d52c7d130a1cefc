import type { Command } from 'commander';
import { emit, table } from '../output.js';
import { wantsJson, type Context } from '../context.js';

type IssuedKey = { id: string; kind: string; livemode: boolean; key: string; hint: string; scopes: string[] };
type Project = {
  id: string;
  name: string;
  displayName: string;
  logoUrl: string | null;
  createdAt: string;
  suspendedAt: string | null;
};
type CreatedProject = Project & {
  keys: IssuedKey[];
  webhookEndpoint: { id?: string; url?: string; secret?: string } | null;
};

export function registerProjectCommands(program: Command, ctx: Context): void {
  const project = program.command('project').description('Projects and their keys');

  project
    .command('create')
    .description('Create a project; prints its id, its four keys and the webhook secret (shown once)')
    .requiredOption('--name <name>', 'project name')
    .option('--display-name <name>', 'name shown to payers (default: the name)')
    .option('--logo <url>', 'logo URL shown to payers')
    .option('--webhook-url <url>', 'also create a sandbox webhook endpoint')
    .action(
      async (
        options: { name: string; displayName?: string; logo?: string; webhookUrl?: string },
        command: Command,
      ) => {
        const created = await ctx.admin.request<CreatedProject>('POST', '/v1/admin/projects', {
          body: {
            name: options.name,
            displayName: options.displayName,
            logoUrl: options.logo,
            webhookUrl: options.webhookUrl,
          },
        });
        emit(wantsJson(command), created, () => {
          const lines = [
            `Project ${created.id} (${created.displayName})`,
            '',
            'Keys (shown this once; store them now):',
          ];
          for (const key of created.keys)
            lines.push(`  ${key.livemode ? 'live' : 'test'} ${key.kind.padEnd(11)} ${key.key}`);
          if (created.webhookEndpoint?.secret) {
            lines.push(
              '',
              `Webhook ${created.webhookEndpoint.url ?? ''} secret: ${created.webhookEndpoint.secret}`,
            );
          }
          return lines.join('\n');
        });
      },
    );

  project
    .command('list')
    .description('List projects')
    .action(async (_options: unknown, command: Command) => {
      const { data } = await ctx.admin.request<{ data: Project[] }>('GET', '/v1/admin/projects');
      emit(wantsJson(command), data, () =>
        table([
          ['ID', 'NAME', 'DISPLAY NAME', 'CREATED', 'SUSPENDED'],
          ...data.map((p) => [p.id, p.name, p.displayName, p.createdAt, p.suspendedAt]),
        ]),
      );
    });

  project
    .command('show')
    .description('A project and its keys (hints only)')
    .argument('<projectId>')
    .action(async (projectId: string, _options: unknown, command: Command) => {
      const found = await ctx.admin.request<Project & { keys: IssuedKey[] }>(
        'GET',
        `/v1/admin/projects/${encodeURIComponent(projectId)}`,
      );
      emit(wantsJson(command), found, () =>
        [
          `Project ${found.id} (${found.displayName})`,
          ...found.keys.map((k) => `  ${k.id} ${k.livemode ? 'live' : 'test'} ${k.kind} ${k.hint}`),
        ].join('\n'),
      );
    });

  for (const action of ['suspend', 'resume'] as const) {
    project
      .command(action)
      .description(
        action === 'suspend'
          ? 'Suspend a project: its keys answer 403 service_suspended until it is resumed'
          : 'Resume a suspended project: its keys work again',
      )
      .argument('<projectId>')
      .action(async (projectId: string, _options: unknown, command: Command) => {
        const changed = await ctx.admin.request<Project>(
          'POST',
          `/v1/admin/projects/${encodeURIComponent(projectId)}/${action}`,
        );
        emit(wantsJson(command), changed, () =>
          changed.suspendedAt
            ? `Project ${changed.id} is suspended since ${changed.suspendedAt}: its keys answer 403 service_suspended.`
            : `Project ${changed.id} is active: its keys work.`,
        );
      });
  }
}
