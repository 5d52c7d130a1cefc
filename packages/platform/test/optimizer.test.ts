import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnTypeScript } from '../src/testing/index.js';

/** The fixture in a process of its own: whether a hot function got optimized, at each step. */
async function run(env: Record<string, string> = {}) {
  const fixture = spawnTypeScript(fileURLToPath(new URL('./optimizer.fixture.ts', import.meta.url)), {
    ...process.env,
    ...env,
  });
  expect(await fixture.exited, fixture.output()).toBe(0);
  return JSON.parse(fixture.stdout()) as Record<string, boolean>;
}

describe("a service's start-up without the baseline and optimizing compilers", () => {
  it('leaves code interpreted while the service starts, is quiet or works a moment, and compiles it once it works', async () => {
    expect(await run()).toEqual({
      whileStarting: false,
      baselineWhileStarting: false,
      whileQuiet: false,
      afterMoment: false,
      baselineWhileQuiet: false,
      onceBusy: true,
      baselineOnceBusy: true,
    });
  }, 30_000);

  it('compiles again after the deferral’s limit when the service never becomes ready', async () => {
    expect(await run({ RESUME: 'never' })).toEqual({
      whileStarting: false,
      baselineWhileStarting: false,
      afterLimit: true,
      baselineAfterLimit: true,
    });
  }, 30_000);
});
