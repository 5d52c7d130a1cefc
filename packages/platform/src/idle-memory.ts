import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often a service looks at whether it was idle since it last looked. */
const CHECK_EVERY_MS = 1_000;
/**
 * V8 shrinks the young generation at a collection only if allocation since the collection
 * before (over at least 5 s) was low: the first collection after a burst still sees the
 * burst, the next, this much later, gives the space back.
 */
const YOUNG_COLLECTIONS_APART_MS = 5_500;
/** Below this share of the last stretch spent running, the service counts as idle. */
const IDLE_UTILIZATION = 0.05;
/**
 * Work that brings the optimizing compiler back: the time spent running in stretches that
 * were not idle, added up. A moment's work (a registration, a few admin calls) stays below
 * it; a second of load reaches it.
 */
const OPTIMIZE_AFTER_WORK_MS = 1_000;
/**
 * V8's young generation before anything grew it (1 MB a semi-space), with some room: below
 * it, an idle service collects nothing more (the bench waits for every service to be there).
 */
export const SMALL_YOUNG_GENERATION_BYTES = 4 * 1024 * 1024;

/** Growth of the old generation worth a full collection of an idle service. */
const OLD_GROWTH_BYTES = 8 * 1024 * 1024;

/**
 * Gives back, once a service is idle, the memory its last work left behind: measured after
 * ten seconds of creates, the gateway held 113 MB and payments 119 MB where they had started
 * idle at 90 and 70.
 * - V8's young generation grows with what survives its collections (loading the modules
 *   grows it to 16 MB, a burst of requests to 16 or 32 MB), and an idle service collects too
 *   rarely for V8 to see that allocation has dropped, so it never shrinks it again. A
 *   young-generation collection (a few milliseconds) once the service is idle, and another
 *   5.5 s later, let V8 give the space back.
 * - What a burst promoted to the old generation stays there until a full collection, which
 *   an idle service never triggers either: 25 MB of payments' 46 MB was garbage. A full
 *   collection (tens of milliseconds) runs when the old generation takes 8 MB more than
 *   the last one left it (see `garbageCollector` for how it gives the space back).
 * - The bytecode of what only start-up ran (DROP_STARTUP_BYTECODE) goes at the first full
 *   collection.
 * Every second a service that was idle meanwhile runs whichever is due. A busy service
 * is left alone, and its heap grows again as V8 sees fit, so serving costs nothing more
 * (`--max-semi-space-size` would, with eight times as many collections). The first full
 * collection runs at once, as the end of start-up opens the quiet stretch. The timer does
 * not keep the process alive.
 *
 * It also brings back the compilers that deferOptimizer kept off once the
 * service has worked for OPTIMIZE_AFTER_WORK_MS, rather than as soon as it is ready: a
 * service that only polls, answers its health checks or registers itself runs nothing
 * often enough to be worth optimizing, yet within a minute the few functions its quiet
 * work shares (Node's own argument validators, which every HTTP request it sends calls)
 * were compiled, and that first compilation paged the compiler in (3.6 MB of the sandbox
 * provider's RSS). The first second of load runs unoptimized, as every start of a process
 * does.
 */
export function watchIdleMemory(checkEveryMs = CHECK_EVERY_MS): () => void {
  clearTimeout(optimizerDeadline);
  const collect = garbageCollector();
  collect.full({ dropStartupBytecode: true });
  let oldAfterFull = heapSpace('old_space').space_size;
  let since = performance.eventLoopUtilization();
  let youngCollectedAt = -Infinity;
  let workedMs = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const stretch = performance.eventLoopUtilization(now, since);
    since = now;
    if (stretch.utilization >= IDLE_UTILIZATION) {
      workedMs += stretch.active;
      if (workedMs >= OPTIMIZE_AFTER_WORK_MS) resumeOptimizer();
      return;
    }
    if (heapSpace('old_space').space_size > oldAfterFull + OLD_GROWTH_BYTES) {
      collect.full();
      oldAfterFull = heapSpace('old_space').space_size;
    }
    const young = youngGenerationBytes() > SMALL_YOUNG_GENERATION_BYTES;
    if (young && performance.now() - youngCollectedAt >= YOUNG_COLLECTIONS_APART_MS) {
      collect.young();
      youngCollectedAt = performance.now();
    }
  }, checkEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The compilers deferOptimizer turned off (their V8 flags), which resumeOptimizer turns on again. */
let deferred: string[] = [];
const DEFERRABLE_COMPILERS = [
  { flag: 'turbofan', setByArgument: /^--(no-)?(opt|turbofan)$/ },
  { flag: 'sparkplug', setByArgument: /^--(no-)?(always-)?sparkplug$/ },
];
/** Turns them on again should the service never reach watchIdleMemory. */
let optimizerDeadline: NodeJS.Timeout | undefined;

/**
 * The optimizer comes back after this long unless the service became ready first (then
 * watchIdleMemory brings it back once the service works): a start that hangs, or an entry
 * whose main never calls runService, must not leave a process running unoptimized code
 * for good.
 */
const OPTIMIZER_DEFERRED_AT_MOST_MS = 60_000;

/**
 * Keeps V8's compilers above its interpreter, the baseline compiler (Sparkplug) and the
 * optimizing one (TurboFan), off while a service loads and starts. What runs then runs
 * once: building the contracts' few hundred schemas made zod's constructors hot enough for
 * TurboFan to compile five of them (up to 25 ms each, on a background thread) for nothing,
 * and its first compilation pages the compiler's own machine code in (3.4 MB of the `node`
 * executable; 4.5 MB of RSS in all, measured in customers), so every service carried it
 * before serving anything. Sparkplug likewise compiled what start-up and the first admin
 * calls ran a few times into machine code that stayed, and paged its own code in: about
 * 1 MB of an idle service's RSS and 2 MB of the gateway's, whose code space went from 1.8
 * to 0.3 MB. Once the service is ready, watchIdleMemory turns both on again when the service has
 * worked a second, and what runs often from then on is compiled as before. Each is left
 * alone when `node` was started with a setting of its own for it.
 */
export function deferOptimizer(atMostMs = OPTIMIZER_DEFERRED_AT_MOST_MS): void {
  deferred = DEFERRABLE_COMPILERS.filter(
    (compiler) => !process.execArgv.some((arg) => compiler.setByArgument.test(arg)),
  ).map((compiler) => compiler.flag);
  for (const flag of deferred) setFlagsFromString(`--no-${flag}`);
  optimizerDeadline = setTimeout(resumeOptimizer, atMostMs).unref();
}

export function resumeOptimizer(): void {
  clearTimeout(optimizerDeadline);
  for (const flag of deferred) setFlagsFromString(`--${flag}`);
  deferred = [];
}

export const heapSpace = (name: string) =>
  getHeapSpaceStatistics().find((space) => space.space_name === name) ?? {
    space_size: 0,
    space_used_size: 0,
  };

export const youngGenerationBytes = () => heapSpace('new_space').space_size;

/**
 * The bytecode of what start-up ran once (loading the modules, building the contracts'
 * schemas, registering the routes) stays in the heap: V8 drops the bytecode of a function
 * left unused only as it ages across the collections V8 starts itself, and an idle service
 * runs none (sixteen full collections of an idle gateway in a row freed nothing of it,
 * measured). The first full collection, as the service becomes ready, drops the bytecode of
 * every function not running then, whatever its age: 1.1 to 2.1 MB of each service's heap,
 * about 1 MB of RSS (1.4 MB in the gateway). A function called again is compiled again from
 * its source on that call (a fraction of a millisecond); the later collections drop nothing,
 * so a service that has served keeps the code of what it serves. Functions that start-up ran
 * often enough for baseline code keep it: dropping that too (`--flush-baseline-code`, off
 * by default in this V8) would save 0.3 to 0.5 MB more on a path V8 ships disabled.
 */
const DROP_STARTUP_BYTECODE = '--stress-flush-code';

/**
 * `gc()` without running the process with `--expose-gc`: only a new context gets it, then
 * the flag is off again. The full collection is the one that repeats until nothing more
 * goes (a single one that ends a marking begun during the burst keeps what was still
 * referenced then), and it compacts: what a burst leaves lives scattered over the pages it
 * filled, so a collection alone frees few whole pages (payments kept 44 MB of old
 * generation for 15 MB of objects), and V8 compacts on its own only under memory pressure.
 */
function garbageCollector() {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options?: { type: 'minor' }) => void;
  setFlagsFromString('--no-expose-gc');
  return {
    young: () => gc({ type: 'minor' }),
    full: ({ dropStartupBytecode = false } = {}) => {
      const flags = ['--compact-on-every-full-gc', ...(dropStartupBytecode ? [DROP_STARTUP_BYTECODE] : [])];
      for (const flag of flags) setFlagsFromString(flag);
      try {
        gc();
      } finally {
        for (const flag of flags) setFlagsFromString(flag.replace(/^--/, '--no-'));
      }
    },
  };
}
