import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8 gives back young-generation space only at a collection that finds allocation low over
 * its last 5 s: the quiet stretch must start after the start-up work, not at the last
 * collection during it.
 */
const QUIET_MS = 5_500;
/** A service still busy after this many stretches uses its young generation: it keeps it. */
const STRETCHES = 4;
/** V8's young generation before anything grew it (1 MB a semi-space), with some room. */
const SMALL_YOUNG_GENERATION_BYTES = 4 * 1024 * 1024;

type Collect = (options: { type: 'minor' }) => void;

/**
 * Loading the modules grows V8's young generation to 16 MB (it grows with what survives,
 * and every schema, route and client made at load survives), and a quiet service then
 * collects too rarely for V8 to shrink it again: 13 MB of each service's idle memory. A
 * young-generation collection once the service is started opens a quiet stretch, another
 * at its end lets V8 give the space back (a few milliseconds each); a service that was
 * not quiet tries again, a few times. Under load the space grows again as V8 sees fit, so
 * serving costs nothing more (`--max-semi-space-size` would, with eight times as many
 * collections). The timer does not keep the process alive.
 */
export function collectAfterStart(quietMs = QUIET_MS): () => void {
  const collect = garbageCollector();
  let timer: NodeJS.Timeout | undefined;
  const stretch = (left: number) => {
    collect({ type: 'minor' });
    if (left === 0 || youngGenerationBytes() <= SMALL_YOUNG_GENERATION_BYTES) return;
    timer = setTimeout(() => stretch(left - 1), quietMs);
    timer.unref();
  };
  stretch(STRETCHES);
  return () => clearTimeout(timer);
}

function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/** `gc()` without running the process with `--expose-gc`: only a new context gets it, then the flag is off again. */
function garbageCollector(): Collect {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as Collect;
  setFlagsFromString('--no-expose-gc');
  return collect;
}
