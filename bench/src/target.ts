import { startSystem } from '@mmp/test-e2e/system';
import { SYSTEM_ENV_VARIABLE } from './config.js';
import { serveChild } from './processes.js';

export type TargetReady = { baseUrl: string; adminToken: string };

/**
 * The in-process shape, in its own process so the load generator does not share its event
 * loop: the whole system, every service in one process, as in the end-to-end tests.
 */
serveChild<TargetReady>(async () => {
  const env = JSON.parse(process.env[SYSTEM_ENV_VARIABLE] ?? '{}') as Record<string, string>;
  const system = await startSystem({ env });
  return {
    ready: { baseUrl: system.baseUrl, adminToken: system.adminToken },
    stop: () => system.stop(),
  };
});
