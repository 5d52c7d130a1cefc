import { describe, expect, it } from 'vitest';
import { collectAfterStart } from './idle-memory.js';

describe('collectAfterStart', () => {
  it('collects without --expose-gc and leaves no gc() to the code of the process', async () => {
    const hadGc = 'gc' in globalThis;
    const cancel = collectAfterStart(10);
    await new Promise((resolve) => setTimeout(resolve, 30));
    cancel();
    expect('gc' in globalThis).toBe(hadGc);
  });
});
