import { randomBase62, newEventId } from '@mmp/protocol';
import type { PendingEvent } from '@mmp/platform';
import { OPEN_STATUSES, eventTypeFor, type Decision, type Move } from '../domain/lifecycle.js';
import { toSnapshot, type Payment } from '../domain/payment.js';
import type { TimelineEntry } from '../domain/timeline.js';
import { findPaymentById } from '../store/payments.js';
import type { Deps } from './deps.js';

/** What a trigger wants: the decision, and fields to write with a move. */
export type Plan = {
  decision: Decision;
  set?: Partial<Payment>;
  detail?: Record<string, unknown>;
  /** A settlement this plan applies, remembered so it is applied once. */
  settlementId?: string;
};

export type TransitionResult =
  | { outcome: 'moved'; payment: Payment }
  | { outcome: 'unchanged'; payment: Payment; reason: string }
  | { outcome: 'missing' };

export function paymentEvent(
  type: string,
  payment: Payment,
  at: string,
  extra: Record<string, unknown> = {},
): PendingEvent {
  return {
    id: newEventId(),
    type,
    occurredAt: at,
    projectId: payment.projectId,
    livemode: payment.livemode,
    data: { payment: toSnapshot(payment), ...extra },
  };
}

function anomalyEntry(
  anomaly: string,
  payment: Payment,
  at: string,
  detail?: Record<string, unknown>,
): TimelineEntry {
  return {
    id: `tl_${randomBase62(20)}`,
    type: 'reconciliation.anomaly',
    status: payment.status,
    at,
    detail: { anomaly, ...detail },
  };
}

/**
 * Writes one move as a compare-and-set on the status read, with its `payment.*` event and
 * timeline entries in the same write. Null when the payment moved meanwhile.
 */
export async function writeMove(
  deps: Deps,
  payment: Payment,
  move: Move,
  plan: Plan,
  requestId?: string,
): Promise<Payment | null> {
  const at = deps.now().toISOString();
  const set: Partial<Payment> = { status: move.to, updatedAt: at, ...plan.set };
  if (plan.settlementId) set.appliedSettlements = [...payment.appliedSettlements, plan.settlementId];
  if (move.to === 'COMPLETED' && !payment.completedAt) set.completedAt = at;
  const next: Payment = { ...payment, ...set };
  const event = paymentEvent(eventTypeFor(move.to), next, at);
  const entries: TimelineEntry[] = [
    {
      id: event.id,
      type: event.type,
      status: move.to,
      at,
      ...(plan.detail ? { detail: plan.detail } : {}),
      ...(set.failureCode ? { failureCode: set.failureCode, failureReason: set.failureReason ?? null } : {}),
    },
  ];
  if (move.anomaly)
    entries.push(anomalyEntry(move.anomaly, next, at, { from: payment.status, ...plan.detail }));
  return deps.outbox.update(
    deps.db.payments,
    { _id: payment._id, status: payment.status, version: payment.version },
    {
      $set: set,
      ...(OPEN_STATUSES.includes(move.to) ? {} : { $unset: { openUntil: true as const } }),
      $push: { timeline: { $each: entries } },
      $inc: { version: 1 },
    },
    [event],
    requestId,
  );
}

/**
 * Reads the payment, asks `plan` what the trigger means for it, and writes the answer.
 * A lost compare-and-set means someone else moved the payment: read again and re-decide.
 */
export async function transition(
  deps: Deps,
  paymentId: string,
  plan: (payment: Payment) => Plan,
  requestId?: string,
): Promise<TransitionResult> {
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const payment = await findPaymentById(deps.db, paymentId);
    if (!payment) return { outcome: 'missing' };
    const planned = plan(payment);
    const { decision } = planned;
    if (decision.kind === 'none') {
      if (decision.anomaly && !(await recordAnomaly(deps, payment, decision.anomaly, planned))) continue;
      return { outcome: 'unchanged', payment, reason: decision.reason };
    }
    const updated = await writeMove(deps, payment, decision.move, planned, requestId);
    if (updated) return { outcome: 'moved', payment: updated };
  }
  throw new Error(`payment ${paymentId} kept changing under concurrent writers`);
}

/** A contradiction that changes no state (e.g. FAILED after COMPLETED) still goes on the timeline. */
async function recordAnomaly(deps: Deps, payment: Payment, anomaly: string, plan: Plan): Promise<boolean> {
  const entry = anomalyEntry(anomaly, payment, deps.now().toISOString(), plan.detail);
  const set = plan.settlementId
    ? { appliedSettlements: [...payment.appliedSettlements, plan.settlementId] }
    : {};
  const written = await deps.db.payments.findOneAndUpdate(
    { _id: payment._id, status: payment.status, version: payment.version },
    {
      $set: { ...set, updatedAt: deps.now().toISOString() },
      $push: { timeline: { $each: [entry] } },
      $inc: { version: 1 },
    },
  );
  if (written) deps.log.warn({ paymentId: payment.id, anomaly }, 'reconciliation anomaly recorded');
  return written !== null;
}
