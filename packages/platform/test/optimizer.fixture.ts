import '../src/service-entry.js';
import { setFlagsFromString } from 'node:v8';
import { resumeOptimizer } from '../src/idle-memory.js';

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
async function optimizedAfterWork(): Promise<boolean> {
  const until = Date.now() + 3_000;
  while (Date.now() < until) {
    for (let k = 0; k < 50; k += 1) hot(20_000);
    // The compilation runs on a background thread: give it a turn to land.
    await new Promise((resolve) => setTimeout(resolve, 10));
    if ((status(hot) & OPTIMIZED) !== 0) return true;
  }
  return false;
}

const whileStarting = await optimizedAfterWork();
resumeOptimizer();
const onceReady = await optimizedAfterWork();
process.stdout.write(`${JSON.stringify({ whileStarting, onceReady })}\n`);
