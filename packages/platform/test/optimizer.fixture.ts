import { setFlagsFromString } from 'node:v8';
import { deferOptimizer, resumeOptimizer } from '../src/idle-memory.js';

// As a service's main starts; or, with RESUME=never, one whose start never reaches
// runService, deferred for at most 4 s (the first look below takes 3).
const neverResumed = process.env.RESUME === 'never';
if (neverResumed) deferOptimizer(4_000);
else await import('../src/service-entry.js');

// V8's own view of a function: bit 16 of %GetOptimizationStatus is "optimized".
setFlagsFromString('--allow-natives-syntax');
const status = new Function('fn', 'return %GetOptimizationStatus(fn);') as (fn: unknown) => number;
const OPTIMIZED = 16;

function hot(n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i += 1) sum += (i * 7) % 13;
  return sum;
}

/** Runs `hot` as start-up code would, long enough for V8 to want it optimized, then looks. */
async function optimizedAfterWork(forMs: number): Promise<boolean> {
  const until = Date.now() + forMs;
  while (Date.now() < until) {
    for (let k = 0; k < 50; k += 1) hot(20_000);
    // The compilation runs on a background thread: give it a turn to land.
    await new Promise((resolve) => setTimeout(resolve, 10));
    if ((status(hot) & OPTIMIZED) !== 0) return true;
  }
  return false;
}

const whileStarting = await optimizedAfterWork(3_000);
if (!neverResumed) resumeOptimizer();
const onceReady = await optimizedAfterWork(8_000);
process.stdout.write(`${JSON.stringify({ whileStarting, onceReady })}\n`);
