import { getHeapCodeStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { watchIdleMemory } from './idle-memory.js';

const bytecodeBytes = () => getHeapCodeStatistics().bytecode_and_metadata_size;

describe('watchIdleMemory', () => {
  it('collects without --expose-gc and leaves no gc() to the code of the process', async () => {
    const hadGc = 'gc' in globalThis;
    const stop = watchIdleMemory(10);
    await new Promise((resolve) => setTimeout(resolve, 30));
    stop();
    expect('gc' in globalThis).toBe(hadGc);
  });

  it('gives back the code of what ran only at start-up, and what is called again still runs', () => {
    // A start-up step: a large function run once, as module loading and route registration are.
    const steps = Array.from({ length: 5_000 }, (_, i) => `total += ${i} * step;`).join('\n');
    const startupStep = new Function('step', `let total = 0;\n${steps}\nreturn total;`) as (
      step: number,
    ) => number;
    expect(startupStep(1)).toBe(12_497_500);
    const before = bytecodeBytes();

    watchIdleMemory(60_000)();

    // Its bytecode alone is about 140 kB; what else the worker dropped only adds to the drop.
    expect(before - bytecodeBytes()).toBeGreaterThan(100_000);
    expect(startupStep(2)).toBe(24_995_000);
  });
});
