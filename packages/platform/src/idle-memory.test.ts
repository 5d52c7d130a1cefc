import { describe, expect, it } from 'vitest';
import { collectWhenIdle } from './idle-memory.js';

describe('collectWhenIdle', () => {
  it('collects without --expose-gc and leaves no gc() to the code of the process', async () => {
    const hadGc = 'gc' in globalThis;
    const stop = collectWhenIdle(10);
    await new Promise((resolve) => setTimeout(resolve, 30));
    stop();
    expect('gc' in globalThis).toBe(hadGc);
  });
});
