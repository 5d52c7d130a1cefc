import { Command } from 'commander';
import type { CliConfig } from './config.js';
import { createContext } from './context.js';
import { registerCertifyCommand } from './commands/certify.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerProjectCommands } from './commands/projects.js';
import { registerProviderCommands } from './commands/providers.js';
import { registerRailCommands } from './commands/rails.js';
import { registerTransferCommands } from './commands/transfers.js';
import { registerWebhookCommands } from './commands/webhooks.js';

export function buildProgram(config: CliConfig): Command {
  const program = new Command('mmp')
    .description(`Administer a Mobile Money Payments gateway (${config.url}; MMP_URL, ADMIN_TOKEN)`)
    .option('--json', 'machine-readable JSON on stdout')
    .showHelpAfterError()
    // Usage errors are thrown, not exited on, so main reports them like any other (--json too);
    // set before the commands are added, which inherit it.
    .exitOverride();
  const ctx = createContext(config);
  registerProjectCommands(program, ctx);
  registerKeyCommands(program, ctx);
  registerWebhookCommands(program, ctx);
  registerProviderCommands(program, ctx);
  registerRailCommands(program, ctx);
  registerCertifyCommand(program, ctx);
  registerTransferCommands(program, ctx);
  return program;
}
