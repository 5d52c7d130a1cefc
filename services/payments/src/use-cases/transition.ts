import {
  newEvent,
  paymentEvents,
  randomBase62,
  type PaymentInitiatedData,
  type PendingEvent,
} from '@mmp/protocol';
import { OPEN_STATUSES, eventOf, type Decision, type Move } from '../domain/lifecycle.js';
import { toSnapshot, type Payment } from '../domain/payment.js';
import type { TimelineEntry } from '../domain/timeline.js';
import { findPaymentById, recordAnomaly } from '../store/payments.js';
import type { Deps } from '../deps.js';

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

const metaOf = (payment: Payment, at: string) => ({
  occurredAt: at,
  projectId: payment.projectId,
  livemode: payment.livemode,
});

/** `payment.created`, written with the new payment. */
export const createdEvent = (payment: Payment): PendingEvent =>
  newEvent(paymentEvents.created, { payment: toSnapshot(payment) }, metaOf(payment, payment.createdAt));

/** `payment.initiated`, with what provider-router needs to route the order. */
export const initiatedEvent = (
  payment: Payment,
  at: string,
  execution: PaymentInitiatedData['execution'],
): PendingEvent =>
  newEvent(paymentEvents.initiated, { payment: toSnapshot(payment), execution }, metaOf(payment, at));

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
  const event = newEvent(eventOf(move.to), { payment: toSnapshot(next) }, metaOf(next, at));
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
 * A caller that has just read the payment passes it instead of its id and saves a read: the
 * compare-and-set on its version still catches a copy that has gone stale.
 */
export async function transition(
  deps: Deps,
  target: string | Payment,
  plan: (payment: Payment) => Plan,
  requestId?: string,
): Promise<TransitionResult> {
  const paymentId = typeof target === 'string' ? target : target.id;
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const payment =
      attempt === 0 && typeof target !== 'string' ? target : await findPaymentById(deps.db, paymentId);
    if (!payment) return { outcome: 'missing' };
    const planned = plan(payment);
    const { decision } = planned;
    if (decision.kind === 'none') {
      if (decision.anomaly) {
        // A contradiction that changes no state (FAILED after COMPLETED) still goes on the timeline.
        const entry = anomalyEntry(decision.anomaly, payment, deps.now().toISOString(), planned.detail);
        if (!(await recordAnomaly(deps.db, payment, entry, planned.settlementId))) continue;
        deps.log.warn(
          { paymentId: payment.id, anomaly: decision.anomaly },
          'reconciliation anomaly recorded',
        );
      }
      return { outcome: 'unchanged', payment, reason: decision.reason };
    }
    const updated = await writeMove(deps, payment, decision.move, planned, requestId);
    if (updated) return { outcome: 'moved', payment: updated };
  }
  throw new Error(`payment ${paymentId} kept changing under concurrent writers`);
}
