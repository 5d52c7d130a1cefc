import type { Command } from 'commander';
import { createClient, type Client } from './client.js';
import type { CliConfig } from './config.js';

export type Context = {
  admin: Client;
  provider(key?: string): Client;
  /** A merchant's secret key: refunds, payouts and the balance are the merchant's own. */
  merchant(key?: string): Client;
};

export function createContext(config: CliConfig): Context {
  return {
    admin: createClient(
      config.url,
      config.adminToken,
      'no admin token: set ADMIN_TOKEN, or run from the folder where `pnpm start` wrote .data/admin-token (or set DATA_DIR).',
    ),
    provider: (key) =>
      createClient(
        config.url,
        key ?? config.providerKey,
        'no provider key: pass --provider-key or set MMP_PROVIDER_KEY.',
      ),
    merchant: (key) =>
      createClient(
        config.url,
        key ?? config.secretKey,
        "no merchant key: pass --key or set MMP_SECRET_KEY to the project's secret key (sk_…).",
      ),
  };
}

/** The `--json` flag, declared once on the root program and accepted after any command. */
export function wantsJson(command: Command): boolean {
  return command.optsWithGlobals<{ json?: boolean }>().json === true;
}

export const list = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/**
 * Declares the commands of `group`, each with the options every one of them takes (a key, a
 * project): `commandsOf(group, options)(name, description)`.
 */
export function commandsOf(
  group: Command,
  withOptions: (command: Command) => Command = (command) => command,
) {
  return (name: string, description: string) => withOptions(group.command(name).description(description));
}
