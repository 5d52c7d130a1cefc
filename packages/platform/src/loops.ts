import type { Logger } from './logger.js';
import { countLoopRun, type MetricsRegistry } from './metrics.js';
import { backoffDelay } from './backoff.js';

export type Loop = {
  /** Runs a pass now, or right after the pass under way, instead of waiting for the interval. */
  kick(): void;
  stop(): Promise<void>;
};

export type LoopSpec = {
  /** The `loop` label of `mmp_loop_runs_total`. */
  name: string;
  intervalMs: number;
  /**
   * After a failed pass, run the next this soon instead of after `intervalMs`, twice as late
   * after each further failed pass in a row (with the system's jitter), never later than
   * `intervalMs`: for a loop whose interval is long and whose pass fails for a moment (a
   * call to a restarting service), so that the work behind one lost call does not wait the
   * whole interval, while a dependency that stays down is asked less and less often.
   */
  retryFirstMs?: number;
  pass: (signal: AbortSignal) => Promise<unknown>;
};

/**
 * A background loop: one pass at start, then one `intervalMs` after each pass ends, so
 * passes never overlap. What a pass works on lives in the store, so a restart simply
 * resumes. A failed pass is logged and counted, and the next one runs as usual, or sooner
 * with `retryFirstMs`. `stop` waits for the pass under way; `signal` tells a long pass to
 * end early.
 */
export function startLoop(options: LoopSpec & { log: Logger; metrics?: MetricsRegistry }): Loop {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let kicked = false;
  let failedInARow = 0;
  const nextDelay = () =>
    failedInARow > 0 && options.retryFirstMs !== undefined
      ? Math.min(options.intervalMs, backoffDelay(failedInARow - 1, { baseMs: options.retryFirstMs }))
      : options.intervalMs;
  const schedule = (delayMs: number) => {
    clearTimeout(timer);
    if (!stopping.signal.aborted) timer = setTimeout(tick, delayMs);
  };
  const tick = () => {
    kicked = false;
    running = countLoopRun(options.metrics, options.name, () => options.pass(stopping.signal))
      .then(
        () => (failedInARow = 0),
        (error: unknown) => {
          failedInARow += 1;
          options.log.warn({ err: error, loop: options.name }, 'loop pass failed');
        },
      )
      .finally(() => {
        running = undefined;
        schedule(kicked ? 0 : nextDelay());
      });
  };
  schedule(0);
  return {
    kick() {
      if (running) kicked = true;
      else schedule(0);
    },
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
