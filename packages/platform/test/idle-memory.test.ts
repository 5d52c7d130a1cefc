import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnTypeScript } from '../src/testing/index.js';

const MB = 1024 * 1024;

type Heap = { young: number; old: number; oldCommitted: number };

/** The fixture in a process of its own: nothing else there allocates or collects. */
async function heapAfterBurst(
  env: Record<string, string>,
): Promise<{ grown: Heap; idle: Heap; keptBytes: number }> {
  const fixture = spawnTypeScript(fileURLToPath(new URL('./idle-memory.fixture.ts', import.meta.url)), {
    ...process.env,
    ...env,
  });
  await fixture.exited;
  return JSON.parse(fixture.stdout()) as { grown: Heap; idle: Heap; keptBytes: number };
}

describe('watchIdleMemory', () => {
  // Whether V8 alone gives such memory back depends on its memory reducer, which may or may
  // not run within the test's idle stretch (docs/decisions.md has the measurements that
  // motivate the collector); what the kit promises is checked here.
  it('gives back what a burst grew once the service is idle', async () => {
    const collected = await heapAfterBurst({
      CHECK_EVERY_MS: '200',
      IDLE_MS: '9000',
    });
    expect(collected.grown.young).toBeGreaterThanOrEqual(16 * MB);
    expect(collected.grown.old).toBeGreaterThanOrEqual(collected.keptBytes + 8 * MB);
    expect(collected.idle.young).toBeLessThanOrEqual(4 * MB);
    // Compacted: the pages the kept third was scattered over are given back too.
    expect(collected.idle.oldCommitted).toBeLessThanOrEqual(collected.keptBytes + 8 * MB);
  }, 30_000);
});
