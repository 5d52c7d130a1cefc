import type { Outbox, Store } from '@mmp/platform';
import type { PendingEvent } from '@mmp/protocol';
import type { CaseRecord, Run } from '../domain/run.js';
import type { RelayRoute } from '../relay/fault-relay.js';

/** certification-runner's collections; the only place that names them. */
export async function openRunsStore(store: Store) {
  const runs = store.collection<Run>('certification_runs');
  const cases = store.collection<CaseRecord>('certification_cases');
  const relayRoutes = store.collection<RelayRoute>('certification_relay_routes');
  await runs.ensureIndex({ fields: { runningRailId: 1 }, unique: true, sparse: true });
  await runs.ensureIndex({ fields: { railId: 1, startedAt: -1 } });
  await runs.ensureIndex({ fields: { status: 1, startedAt: 1 } });
  await cases.ensureIndex({ fields: { runId: 1 } });
  return { runs, cases, relayRoutes };
}
export type RunsStore = Awaited<ReturnType<typeof openRunsStore>>;

/** A new RUNNING run; a DuplicateKeyError when the rail has a run RUNNING already. */
export function insertRun(db: RunsStore, run: Run): Promise<void> {
  return db.runs.insertOne(run);
}

export function findRun(db: RunsStore, runId: string): Promise<Run | null> {
  return db.runs.findOne({ _id: runId });
}

export function runsOfRail(db: RunsStore, railId: string, limit = 50): Promise<Run[]> {
  return db.runs.find({ railId }, { sort: { startedAt: -1 }, limit });
}

export function casesOfRun(db: RunsStore, runId: string): Promise<CaseRecord[]> {
  return db.cases.find({ runId });
}

/** A finished case with its certification.case-finished event, in one write. */
export function recordCase(outbox: Outbox, db: RunsStore, record: CaseRecord, events: PendingEvent[]) {
  return outbox.insert(db.cases, record, events);
}

/** RUNNING to its end, with its events; null when it had ended already. */
export function finishRun(
  outbox: Outbox,
  db: RunsStore,
  runId: string,
  end: Pick<Run, 'status' | 'badge' | 'finishedAt'>,
  events: PendingEvent[],
): Promise<Run | null> {
  return outbox.update(
    db.runs,
    { _id: runId, status: 'RUNNING' },
    { $set: end, $unset: { runningRailId: true } },
    events,
  );
}

/** Runs still RUNNING that started before `before`: their process died with them. */
export function staleRuns(db: RunsStore, before: string): Promise<Run[]> {
  return db.runs.find({ status: 'RUNNING', startedAt: { $lt: before } }, { limit: 50 });
}
