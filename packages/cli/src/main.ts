#!/usr/bin/env node
import { CommanderError } from 'commander';
import { CliError } from './client.js';
import { loadConfig } from './config.js';
import { buildProgram } from './program.js';

const json = process.argv.includes('--json');
const writeJsonError = (error: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);

buildProgram(loadConfig())
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    if (error instanceof CommanderError) {
      // Commander has already printed the usage error (or the help asked for) on stderr.
      const usageError = error.exitCode !== 0 && error.code !== 'commander.help';
      if (json && usageError) writeJsonError({ message: error.message.replace(/^error: /, '') });
      process.exitCode = error.exitCode;
      return;
    }
    const known = error instanceof CliError;
    const message = known
      ? error.message
      : `unexpected failure: ${(error as Error)?.message ?? String(error)}`;
    if (json) writeJsonError({ message, ...(known ? error.details : {}) });
    const requestId = known && error.details.requestId ? ` (request ${error.details.requestId})` : '';
    console.error(`mmp: ${message}${requestId}`);
    process.exitCode = 1;
  });
