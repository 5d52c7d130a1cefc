import { describe, expect, it } from 'vitest';
import { watchIdleMemory } from './idle-memory.js';

describe('watchIdleMemory', () => {
  it('collects without --expose-gc and leaves no gc() to the code of the process', async () => {
    const hadGc = 'gc' in globalThis;
    const stop = watchIdleMemory(10);
    await new Promise((resolve) => setTimeout(resolve, 30));
    stop();
    expect('gc' in globalThis).toBe(hadGc);
  });
});
