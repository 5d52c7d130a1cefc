import { finishRun, staleRuns } from '../store/runs.js';
import type { RunnerDeps } from './deps.js';
import { endEvents } from './execute-run.js';

/**
 * Runs whose process died mid-run stay RUNNING; after `staleMs` they end FAILED. Their
 * failure is the runner's, not the adapter's, so the channel's badge is left as it was.
 */
export async function endStaleRuns(deps: RunnerDeps, staleMs: number): Promise<number> {
  const before = new Date(Date.now() - staleMs).toISOString();
  // Relay routes of cases that died with their process: no delivery needs them any more.
  await deps.db.relayRoutes.deleteMany({ createdAt: { $lt: before } });
  const stale = await staleRuns(deps.db, before);
  let ended = 0;
  for (const run of stale) {
    const end = { status: 'FAILED' as const, badge: null, finishedAt: new Date().toISOString() };
    if (await finishRun(deps.outbox, deps.db, run._id, end, endEvents(run, end))) ended += 1;
  }
  return ended;
}
