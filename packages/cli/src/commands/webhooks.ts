import type { Command } from 'commander';
import type { WebhookDelivery, WebhookEndpoint } from '@mmp/protocol';
import { emit, summary, table } from '../output.js';
import { commandsOf, list, wantsJson, type Context } from '../context.js';

type Options = { project: string; live?: boolean };

const base = (projectId: string) => `/v1/admin/projects/${encodeURIComponent(projectId)}/webhook-endpoints`;
const env = (options: Options) => ({ livemode: options.live ? 'true' : 'false' });

/** Webhook endpoints of a project, driven by the admin acting for that project. */
export function registerWebhookCommands(program: Command, ctx: Context): void {
  const scoped = commandsOf(
    program.command('webhook').description("A project's webhook endpoints"),
    (command) =>
      command
        .requiredOption('--project <id>', 'project id')
        .option('--live', 'live environment (default: test)'),
  );

  scoped('set', 'Create an endpoint; prints its whsec_ secret once')
    .requiredOption('--url <url>', 'endpoint URL (https:// in live mode)')
    .option('--events <list>', 'comma-separated event types (default: all)', list)
    .action(async (options: Options & { url: string; events?: string[] }, command: Command) => {
      const endpoint = await ctx.admin.request<{ id: string; secret?: string }>(
        'POST',
        base(options.project),
        {
          query: env(options),
          body: { url: options.url, enabledEvents: options.events },
        },
      );
      emit(
        wantsJson(command),
        endpoint,
        () => `Endpoint ${endpoint.id}\nSigning secret (shown this once): ${endpoint.secret ?? '-'}`,
      );
    });

  scoped('list', 'List endpoints').action(async (options: Options, command: Command) => {
    const result = await ctx.admin.request<{ data: WebhookEndpoint[] }>('GET', base(options.project), {
      query: env(options),
    });
    emit(wantsJson(command), result, () =>
      table([
        ['ID', 'URL', 'STATUS', 'EVENTS', 'SECRET'],
        ...result.data.map((e) => [e.id, e.url, e.status, e.enabledEvents.join(','), e.secretHint]),
      ]),
    );
  });

  scoped('roll', 'Roll the signing secret of an endpoint; prints the new secret once')
    .requiredOption('--id <endpointId>', 'endpoint id')
    .action(async (options: Options & { id: string }, command: Command) => {
      const endpoint = await ctx.admin.request<{ id: string; secret?: string }>(
        'POST',
        `${base(options.project)}/${encodeURIComponent(options.id)}/roll-secret`,
        { query: env(options) },
      );
      emit(
        wantsJson(command),
        endpoint,
        () => `Endpoint ${endpoint.id}\nNew signing secret (shown this once): ${endpoint.secret ?? '-'}`,
      );
    });

  scoped('deliveries', 'Delivery attempts of an endpoint')
    .requiredOption('--id <endpointId>', 'endpoint id')
    .action(async (options: Options & { id: string }, command: Command) => {
      const result = await ctx.admin.request<{ data: WebhookDelivery[] }>(
        'GET',
        `${base(options.project)}/${encodeURIComponent(options.id)}/deliveries`,
        {
          query: env(options),
        },
      );
      emit(wantsJson(command), result, () =>
        table([
          ['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST HTTP', 'NEXT ATTEMPT'],
          ...result.data.map((d) => [
            d.id,
            d.eventType,
            d.status,
            d.attemptCount,
            d.attempts.at(-1)?.statusCode ?? d.attempts.at(-1)?.error,
            d.nextAttemptAt,
          ]),
        ]),
      );
    });

  scoped('redeliver', 'Deliver an event again')
    .requiredOption('--id <endpointId>', 'endpoint id')
    .requiredOption('--delivery <deliveryId>', 'delivery id')
    .action(async (options: Options & { id: string; delivery: string }, command: Command) => {
      const result = await ctx.admin.request(
        'POST',
        `${base(options.project)}/${encodeURIComponent(options.id)}/deliveries/${encodeURIComponent(options.delivery)}/redeliver`,
        { query: env(options) },
      );
      emit(wantsJson(command), result, () => summary(result));
    });
}
