import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { startLoop, type LoopSpec } from './loops.js';
import { captureLogs, eventually } from './testing/index.js';

/** A loop logging into memory, so that a test reads what it warned of. */
function startTestLoop(spec: LoopSpec) {
  const logs = captureLogs();
  const log = createLogger({ service: 'loop-test', level: 'warn', destination: logs.stream });
  return { loop: startLoop({ ...spec, log }), text: logs.text };
}

describe('startLoop', () => {
  it('runs at start, never overlaps passes, and goes on after a failed one', async () => {
    let passes = 0;
    let inPass = 0;
    let overlapped = false;
    const { loop, text } = startTestLoop({
      name: 'test_loop',
      intervalMs: 5,
      pass: async () => {
        overlapped ||= inPass > 0;
        inPass += 1;
        passes += 1;
        await new Promise((resolve) => setTimeout(resolve, 15));
        inPass -= 1;
        if (passes === 1) throw new Error('store down');
      },
    });
    await eventually(async () => passes >= 3);
    await loop.stop();
    expect(overlapped).toBe(false);
    expect(text()).toContain('"loop":"test_loop"');
    expect(text()).toContain('store down');
  });

  it('tells a long pass to end on stop, waits for it, and runs no more', async () => {
    let passes = 0;
    let sawAbort = false;
    const { loop } = startTestLoop({
      name: 'long_loop',
      intervalMs: 1,
      pass: async (signal) => {
        passes += 1;
        while (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, 2));
        sawAbort = true;
      },
    });
    await eventually(async () => passes === 1);
    await loop.stop();
    expect(sawAbort).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passes).toBe(1);
  });

  it('runs a pass at once when kicked, or right after the pass under way, without waiting for the interval', async () => {
    let passes = 0;
    let release: () => void = () => undefined;
    const { loop } = startTestLoop({
      name: 'kicked_loop',
      intervalMs: 60_000,
      pass: async () => {
        passes += 1;
        if (passes === 2) await new Promise<void>((resolve) => (release = resolve));
      },
    });
    await eventually(async () => passes === 1);
    loop.kick();
    await eventually(async () => passes === 2);
    loop.kick();
    release();
    await eventually(async () => passes === 3);
    await loop.stop();
  });
});
