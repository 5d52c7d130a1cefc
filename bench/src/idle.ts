import { SMALL_YOUNG_GENERATION_BYTES } from '@mmp/platform';

/**
 * When a service is idle enough for its idle RSS to be read. A service gives back what its
 * last work grew once it has been quiet a while (`watchIdleMemory` in the kit): a young-
 * generation collection once quiet and another some 5.5 s later, which lets V8 shrink the
 * young generation, and how many it takes depends on what ran before. A fixed wait read
 * some services before they had (the gateway at 81.8 MB instead of 72), so the bench waits
 * for what it measures: every service's young generation back under the size the kit
 * leaves alone, as each one's `/metrics` tells.
 */

/** Start-up work (index checks, registrations, first loop passes) settles first. */
const IDLE_AT_LEAST_MS = 12_000;
/** A service that has not given its young generation back by then is read as it is. */
const IDLE_AT_MOST_MS = 30_000;
/** Looks again this often: each look is a small request to each service's ops port. */
const LOOK_EVERY_MS = 2_000;
/** V8 unmaps the pages of a shrunk young generation on a thread of its own, within this. */
const UNMAP_MS = 1_000;

/** The young generation's size in a Prometheus exposition of prom-client's default metrics. */
export function youngGenerationOf(metrics: string): number | undefined {
  for (const [, labels, value] of metrics.matchAll(
    /^nodejs_heap_space_size_total_bytes\{([^}]*)\} (\S+)$/gm,
  )) {
    if (labels!.split(',').includes('space="new"')) return Number(value);
  }
  return undefined;
}

/** Each service's young generation, by name; undefined where it did not answer. */
export type YoungGenerations = () => Promise<Record<string, number | undefined>>;

export type IdleWait = {
  waitedMs: number;
  /** Whether the services were asked; in one process only the first wait is made. */
  asked: boolean;
  /** Services whose young generation was still large (undefined: not told) when the wait gave up. */
  stillLarge: Record<string, number | undefined>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits IDLE_AT_LEAST_MS, then until every service's young generation is small, for
 * IDLE_AT_MOST_MS at most. Without a way to ask (every service in one process, where the
 * kit's watcher does not run), only the first wait.
 */
export async function waitForIdleMemory(
  youngGenerations?: YoungGenerations,
  limits = { atLeastMs: IDLE_AT_LEAST_MS, atMostMs: IDLE_AT_MOST_MS, everyMs: LOOK_EVERY_MS },
): Promise<IdleWait> {
  const started = performance.now();
  await sleep(limits.atLeastMs);
  let stillLarge: IdleWait['stillLarge'] = {};
  while (youngGenerations) {
    // A service whose /metrics did not answer is not known to be idle: waited for too.
    stillLarge = Object.fromEntries(
      Object.entries(await youngGenerations()).filter(
        ([, bytes]) => bytes === undefined || bytes > SMALL_YOUNG_GENERATION_BYTES,
      ),
    );
    if (Object.keys(stillLarge).length === 0) {
      await sleep(UNMAP_MS);
      break;
    }
    if (performance.now() - started + limits.everyMs > limits.atMostMs) break;
    await sleep(limits.everyMs);
  }
  return {
    waitedMs: Math.round(performance.now() - started),
    asked: youngGenerations !== undefined,
    stillLarge,
  };
}
