import { certificationEvents, newEvent, type CertificationTarget, type PendingEvent } from '@mmp/protocol';
import {
  badgeAfter,
  caseDefinition,
  caseRecordId,
  runOutcome,
  type CaseOutcome,
  type CaseRecord,
  type Run,
} from '../domain/run.js';
import { finishRun, recordCase } from '../store/runs.js';
import type { CaseContext, CaseRun, OrderKind, SettledOrder } from './cases/context.js';
import { webhookOrderCases } from './cases/order-cases.js';
import { pullOrderCases } from './cases/pull-cases.js';
import {
  failedSettlement,
  majorUnitAmount,
  malformedSettledAt,
  repeatedKey,
  settleOrder,
  signatureMismatch,
  statusOutsideVocabulary,
  validCompletedSettlement,
} from './cases/settlement-cases.js';
import type { RunnerDeps } from './deps.js';

const SETTLEMENT_CASES: Record<number, CaseRun> = {
  1: validCompletedSettlement,
  2: failedSettlement,
  3: majorUnitAmount,
  4: repeatedKey,
  5: statusOutsideVocabulary,
  6: malformedSettledAt,
  7: signatureMismatch,
};

/**
 * Each case by transport: 1 to 7 are the same; 8 to 12 have pull replacements
 * (docs/decisions.md); 13 to 17 repeat 8 to 12 with payout.execute.
 */
const CASES: Record<'webhook' | 'pull', Record<number, CaseRun>> = {
  webhook: { ...SETTLEMENT_CASES, ...webhookOrderCases('payment', 8), ...webhookOrderCases('payout', 13) },
  pull: { ...SETTLEMENT_CASES, ...pullOrderCases('payment', 8), ...pullOrderCases('payout', 13) },
};

/** Runs one case; whatever goes wrong is the case's failure, with the reason as observed. */
async function runCase(ctx: CaseContext, number: number): Promise<CaseRecord> {
  const startedAt = new Date();
  const started = performance.now();
  let outcome: CaseOutcome;
  try {
    const run = CASES[ctx.run.transport][number];
    if (!run) throw new Error(`no case ${number}`);
    outcome = await run(ctx);
  } catch (error) {
    ctx.deps.log.warn({ runId: ctx.run._id, case: number, err: error }, 'certification case could not run');
    outcome = {
      passed: false,
      observed: `the case could not run: ${(error as Error).message}`,
      exchanges: [],
    };
  }
  const finishedAt = new Date().toISOString();
  const record: CaseRecord = {
    _id: caseRecordId(ctx.run._id, number),
    runId: ctx.run._id,
    ...caseDefinition(number),
    observed: outcome.observed,
    status: outcome.passed ? 'PASSED' : 'FAILED',
    latencyMs: Math.round(performance.now() - started),
    exchanges: outcome.exchanges,
    startedAt: startedAt.toISOString(),
    finishedAt,
  };
  const event = newEvent(
    certificationEvents.caseFinished,
    {
      runId: ctx.run._id,
      providerId: ctx.run.providerId,
      railId: ctx.run.railId,
      number,
      status: record.status === 'PASSED' ? 'PASSED' : 'FAILED',
      observed: record.observed,
      latencyMs: record.latencyMs,
    },
    { occurredAt: finishedAt },
  );
  await recordCase(ctx.deps.outbox, ctx.deps.db, record, [event]);
  return record;
}

/** The events that end a run: run-finished and, for a full run, the channel's badge decision. */
export function endEvents(
  run: Run,
  end: Pick<Run, 'status' | 'badge'> & { finishedAt: string },
): PendingEvent[] {
  const meta = { occurredAt: end.finishedAt };
  const { _id: runId, providerId, railId, channel } = run;
  const events = [
    newEvent(
      certificationEvents.runFinished,
      { runId, providerId, railId, channel, kind: run.kind, status: end.status, finishedAt: end.finishedAt },
      meta,
    ),
  ];
  const badge = { providerId, channel, runId, railId, decidedAt: end.finishedAt };
  if (end.badge === 'CERTIFIED') events.push(newEvent(certificationEvents.channelCertified, badge, meta));
  if (end.badge === 'UNCERTIFIED') events.push(newEvent(certificationEvents.channelUncertified, badge, meta));
  return events;
}

/**
 * Runs every case of `run` at once (cases 4 to 7 wait for case 1's settlement, which the
 * run asks the adapter for once), then ends the run with its verdict and, for a full run,
 * the channel's badge, in one write.
 */
export async function executeRun(deps: RunnerDeps, run: Run, target: CertificationTarget): Promise<void> {
  const settled = new Map<OrderKind, Promise<SettledOrder>>();
  const settledOrder = (kind: OrderKind = 'payment') => {
    const known = settled.get(kind);
    if (known) return known;
    const order = settleOrder(ctx, { tag: kind === 'payment' ? 'case1' : 'case13', kind });
    settled.set(kind, order);
    return order;
  };
  const ctx: CaseContext = { deps, run, target, settledOrder };
  const results = await Promise.all(run.caseNumbers.map((number) => runCase(ctx, number)));
  const status = runOutcome(results);
  const end = { status, badge: badgeAfter(run.kind, status), finishedAt: new Date().toISOString() };
  await finishRun(deps.outbox, deps.db, run._id, end, endEvents(run, end));
  deps.log.info(
    { runId: run._id, railId: run.railId, status, badge: end.badge },
    'certification run finished',
  );
}
