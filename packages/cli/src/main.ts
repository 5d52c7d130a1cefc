#!/usr/bin/env node
import { CliError } from './client.js';
import { loadConfig } from './config.js';
import { buildProgram } from './program.js';

const json = process.argv.includes('--json');

buildProgram(loadConfig())
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    const known = error instanceof CliError;
    const message = known
      ? error.message
      : `unexpected failure: ${(error as Error)?.message ?? String(error)}`;
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ error: { message, ...(known ? error.details : {}) } }, null, 2)}\n`,
      );
    }
    const requestId = known && error.details.requestId ? ` (request ${error.details.requestId})` : '';
    console.error(`mmp: ${message}${requestId}`);
    process.exitCode = 1;
  });
