import { expect } from 'vitest';
import type { ServiceName } from '@mmp/protocol';
import type { RunningSystem } from './system.js';

/**
 * A service of `system` run in its own process (the system started with it `external`), ready,
 * for a test that kills it with SIGKILL: `start()` runs it again with the same environment,
 * on the same store and NATS prefix, so it finds what the killed one left.
 */
export async function startOwnProcess(
  system: RunningSystem,
  name: ServiceName,
  env: Record<string, string> = {},
) {
  let child = system.spawnService(name, env);
  await child.waitReady();
  const own = {
    get pid() {
      return child.pid;
    },
    async kill() {
      expect((await child.kill('SIGKILL')).signal).toBe('SIGKILL');
    },
    async start() {
      child = system.spawnService(name, env);
      await child.waitReady();
    },
    async restart() {
      await own.kill();
      await own.start();
    },
  };
  return own;
}
export type OwnProcess = Awaited<ReturnType<typeof startOwnProcess>>;
