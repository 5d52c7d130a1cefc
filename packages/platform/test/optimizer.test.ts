import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnTypeScript } from '../src/testing/index.js';

describe("a service's start-up without the optimizing compiler", () => {
  it('leaves code run while the service starts unoptimized, and optimizes hot code once it is ready', async () => {
    const fixture = spawnTypeScript(
      fileURLToPath(new URL('./optimizer.fixture.ts', import.meta.url)),
      process.env,
    );
    expect(await fixture.exited, fixture.output()).toBe(0);
    expect(JSON.parse(fixture.stdout())).toEqual({ whileStarting: false, onceReady: true });
  }, 30_000);
});
