import { setFlagsFromString } from 'node:v8';
import { deferOptimizer, watchIdleMemory } from '../src/idle-memory.js';

// As a service's main starts; or, with RESUME=never, one whose start never reaches
// runService, deferred for at most 4 s (the first look below takes 3).
const neverReady = process.env.RESUME === 'never';
if (neverReady) deferOptimizer(4_000);
else await import('../src/service-entry.js');

// V8's own view of a function: in %GetOptimizationStatus, bit 16 is "optimized" (TurboFan)
// and bit 32768 "baseline" (Sparkplug).
setFlagsFromString('--allow-natives-syntax');
const status = new Function('fn', 'return %GetOptimizationStatus(fn);') as (fn: unknown) => number;
const OPTIMIZED = 16;
const BASELINE = 32768;

let looks = 0;
/** Whether Sparkplug compiles a function that has run a few thousand times, now. */
async function baselineCompiles(): Promise<boolean> {
  // A new source each time (V8 shares what it compiled between functions of one source), so
  // what an earlier look compiled does not count; and a long one, since Sparkplug compiles
  // in batches of some kilobytes of bytecode, which one small function never fills.
  looks += 1;
  const body = Array.from({ length: 400 }, (_, i) => `b = (b + a.length * ${i + looks}) % 1000003;`);
  const warm = new Function('a', 'b', `${body.join('\n')}\nreturn b;`) as (a: string, b: number) => number;
  for (let i = 0; i < 2_000; i += 1) warm('abc', i);
  await new Promise((resolve) => setTimeout(resolve, 10));
  return (status(warm) & BASELINE) !== 0;
}

function hot(n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i += 1) sum += (i * 7) % 13;
  return sum;
}

/**
 * Runs `hot` for `forMs`, in rounds of `roundMs` of work each followed by `pauseMs` of rest,
 * and says whether V8 optimized it meanwhile.
 */
async function optimizedAfterWork(forMs: number, { roundMs = 50, pauseMs = 10 } = {}): Promise<boolean> {
  const until = Date.now() + forMs;
  while (Date.now() < until) {
    const roundEnds = Date.now() + roundMs;
    do hot(20_000);
    while (Date.now() < roundEnds);
    // The compilation runs on a background thread: the pause gives it a turn to land.
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    if ((status(hot) & OPTIMIZED) !== 0) return true;
  }
  return false;
}

const whileStarting = await optimizedAfterWork(3_000);
const baselineWhileStarting = await baselineCompiles();
if (neverReady) {
  const afterLimit = await optimizedAfterWork(8_000);
  const baselineAfterLimit = await baselineCompiles();
  process.stdout.write(
    `${JSON.stringify({ whileStarting, baselineWhileStarting, afterLimit, baselineAfterLimit })}\n`,
  );
} else {
  // Ready, as runService makes it: quiet work (one call every 100 ms, under 1 % of the
  // time), a moment's work (300 ms), then load.
  watchIdleMemory(200);
  const whileQuiet = await optimizedAfterWork(3_000, { roundMs: 0, pauseMs: 100 });
  const afterMoment = await optimizedAfterWork(300);
  const thenQuiet = await optimizedAfterWork(1_000, { roundMs: 0, pauseMs: 100 });
  const baselineWhileQuiet = await baselineCompiles();
  const onceBusy = await optimizedAfterWork(8_000);
  const baselineOnceBusy = await baselineCompiles();
  process.stdout.write(
    `${JSON.stringify({
      whileStarting,
      baselineWhileStarting,
      whileQuiet,
      afterMoment: afterMoment || thenQuiet,
      baselineWhileQuiet,
      onceBusy,
      baselineOnceBusy,
    })}\n`,
  );
}
