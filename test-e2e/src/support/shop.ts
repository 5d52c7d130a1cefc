import { afterAll, beforeAll } from 'vitest';
import { api } from './http.js';
import { startSystem, type ProjectKeys, type RunningSystem } from './system.js';

/**
 * The system a test file runs against, with one project: started before the file's tests
 * (and its own `beforeAll`s declared after this call), stopped after them. `merchant` calls
 * with the project's test secret key, `shopper` with none, as the hosted page does. With
 * `skip` (all the file's suites skipped) nothing starts.
 */
export function useShop(
  name: string,
  { skip = false, ...options }: Parameters<typeof startSystem>[0] & { skip?: boolean } = {},
) {
  let running: { system: RunningSystem; project: ProjectKeys } | undefined;
  const started = () => {
    if (!running) throw new Error('the shop starts before the tests; call useShop at the top of the file');
    return running;
  };
  beforeAll(async () => {
    if (skip) return;
    const system = await startSystem(options);
    running = { system, project: await system.createProject(name) };
  }, 60_000);
  afterAll(async () => {
    await running?.system.stop();
  });
  return {
    get system() {
      return started().system;
    },
    get project() {
      return started().project;
    },
    merchant: api(
      () => started().system.baseUrl,
      () => started().project.testSecretKey,
    ),
    shopper: api(() => started().system.baseUrl),
  };
}
