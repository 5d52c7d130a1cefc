import type { PaymentSnapshot } from '@mmp/protocol';

/**
 * Where a payment state sits in its life. Every transition of the payment state machine
 * (PENDING -> PROCESSING -> COMPLETED -> PARTIALLY_REFUNDED -> REFUNDED, and the open
 * states -> FAILED / EXPIRED / CANCELLED -> late COMPLETED) moves to an equal or higher
 * rank, so the rank orders a payment's events without trusting anyone's clock.
 */
const STATUS_RANK: Record<string, number> = {
  PENDING: 0,
  PROCESSING: 1,
  FAILED: 2,
  EXPIRED: 2,
  CANCELLED: 2,
  COMPLETED: 3,
  PARTIALLY_REFUNDED: 4,
  REFUNDED: 5,
};

/** Statuses whose money reached the merchant (possibly refunded since). */
export const SETTLED_STATUSES = ['COMPLETED', 'PARTIALLY_REFUNDED', 'REFUNDED'] as const;

export type EventStamp = { eventId: string; occurredAt: string };

/**
 * A total order over the events of one payment, as a string that sorts like the order:
 * status rank (and whether the operator is known), then refunded amount (refunds only grow), then event time, then event id.
 * The projection keeps, per payment, the snapshot of the greatest event it has seen, so
 * the result is the same whatever order events arrive in and however often.
 */
export function paymentVersion(payment: PaymentSnapshot, stamp: EventStamp): string {
  // Within PENDING, initiation (the payer picked an operator) comes after creation.
  const rank = `${STATUS_RANK[payment.status] ?? 0}${payment.paymentMethod === 'UNKNOWN' ? 0 : 1}`;
  const refunded = String(Math.max(0, payment.refundedAmount)).padStart(12, '0');
  const at = new Date(stamp.occurredAt).toISOString();
  return `${rank}|${refunded}|${at}|${stamp.eventId}`;
}

export function isSettled(status: string): boolean {
  return (SETTLED_STATUSES as readonly string[]).includes(status);
}

/** What a payment adds to its customer's spend: completed money net of refunds. */
export function netSpent(payment: Pick<PaymentSnapshot, 'status' | 'amount' | 'refundedAmount'>): number {
  if (payment.status === 'REFUNDED' || !isSettled(payment.status)) return 0;
  return Math.max(0, payment.amount - payment.refundedAmount);
}
