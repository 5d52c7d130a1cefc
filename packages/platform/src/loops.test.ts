import { afterEach, describe, expect, it, vi } from 'vitest';
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

  describe('after failed passes', () => {
    afterEach(() => void vi.useRealTimers());

    /** The gaps between a loop's passes over `forMs` of fake time, passes failing as `fails` says. */
    async function gapsBetweenPasses(
      spec: Omit<LoopSpec, 'name' | 'pass'>,
      fails: (pass: number) => boolean,
      forMs: number,
    ) {
      vi.useFakeTimers();
      const starts: number[] = [];
      const { loop } = startTestLoop({
        ...spec,
        name: 'retrying_loop',
        pass: async () => {
          starts.push(Date.now());
          if (fails(starts.length)) throw new Error('gateway restarting');
        },
      });
      await vi.advanceTimersByTimeAsync(forMs);
      await loop.stop();
      return starts.slice(1).map((start, index) => start - (starts[index] ?? 0));
    }

    it('retries after retryFirstMs, doubled per failed pass in a row up to the interval, and starts over after a success', async () => {
      const gaps = await gapsBetweenPasses(
        { intervalMs: 1_000, retryFirstMs: 100 },
        (pass) => pass <= 6 || pass === 9,
        7_500,
      );
      const expected = [100, 200, 400, 800, 1_000, 1_000, 1_000, 1_000, 100];
      expect(gaps.length).toBeGreaterThanOrEqual(expected.length);
      expected.forEach((gap, index) => {
        // The system's backoff adds up to a fifth at random, and the interval caps it all.
        expect(gaps[index]).toBeGreaterThanOrEqual(gap);
        expect(gaps[index]).toBeLessThanOrEqual(Math.min(1_000, gap * 1.2));
      });
    });

    it('waits the whole interval after a failed pass without retryFirstMs', async () => {
      const gaps = await gapsBetweenPasses({ intervalMs: 1_000 }, () => true, 2_500);
      expect(gaps).toEqual([1_000, 1_000]);
    });
  });
});
