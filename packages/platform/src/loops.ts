import type { Logger } from './logger.js';
import { countLoopRun, type MetricsRegistry } from './metrics.js';

export type Loop = { stop(): Promise<void> };

/**
 * A background loop: one pass at start, then one `intervalMs` after each pass ends, so
 * passes never overlap. What a pass works on lives in the store, so a restart simply
 * resumes. A failed pass is logged and counted, and the next one runs as usual. `stop`
 * waits for the pass under way; `signal` tells a long pass to end early.
 */
export function startLoop(options: {
  name: string;
  intervalMs: number;
  log: Logger;
  metrics?: MetricsRegistry;
  pass: (signal: AbortSignal) => Promise<unknown>;
}): Loop {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = countLoopRun(options.metrics, options.name, () => options.pass(stopping.signal))
      .catch((error) => options.log.warn({ err: error, loop: options.name }, 'loop pass failed'))
      .finally(() => {
        if (!stopping.signal.aborted) timer = setTimeout(tick, options.intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
