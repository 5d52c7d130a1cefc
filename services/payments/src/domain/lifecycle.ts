/**
 * The payment state machine as data plus pure functions. Handlers ask these functions
 * what a trigger means for a payment in a given state, then write the answer with a
 * compare-and-set guarded on the state they read.
 */

import { PAYMENT_STATUSES, paymentEvents, type PaymentStatus } from '@mmp/protocol';

/** Every allowed move. Anything absent is refused. */
export const TRANSITIONS: Record<PaymentStatus, readonly PaymentStatus[]> = {
  PENDING: ['PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'],
  PROCESSING: ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'],
  // Money moved after all: a late COMPLETED settlement wins, recorded as an anomaly.
  EXPIRED: ['COMPLETED'],
  CANCELLED: ['COMPLETED'],
  FAILED: ['COMPLETED'],
  COMPLETED: ['PARTIALLY_REFUNDED', 'REFUNDED'],
  PARTIALLY_REFUNDED: ['PARTIALLY_REFUNDED', 'REFUNDED'],
  REFUNDED: [],
};

/** States the payer can still act on: they may still expire or be cancelled. */
export const OPEN_STATUSES: readonly PaymentStatus[] = ['PENDING', 'PROCESSING'];

/** States whose entry is announced to the merchant's webhook endpoints. */
export const WEBHOOK_STATUSES: readonly PaymentStatus[] = [
  'COMPLETED',
  'FAILED',
  'EXPIRED',
  'CANCELLED',
  'REFUNDED',
  'PARTIALLY_REFUNDED',
];

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Where a move may lead: every state but the first. */
export type MoveTarget = Exclude<PaymentStatus, 'PENDING'>;

/** The event announcing entry into each state a move can reach. */
const EVENT_OF = {
  PROCESSING: paymentEvents.processing,
  COMPLETED: paymentEvents.completed,
  FAILED: paymentEvents.failed,
  EXPIRED: paymentEvents.expired,
  CANCELLED: paymentEvents.cancelled,
  REFUNDED: paymentEvents.refunded,
  PARTIALLY_REFUNDED: paymentEvents.partiallyRefunded,
} as const satisfies Record<MoveTarget, unknown>;

export function eventOf(status: MoveTarget): (typeof EVENT_OF)[MoveTarget] {
  return EVENT_OF[status];
}

/** What a state change should do; `anomaly` names a reconciliation problem to record. */
export type Move = { to: MoveTarget; anomaly?: string };

/** What a trigger decided: a move, or nothing to change with the reason why. */
export type Decision = { kind: 'move'; move: Move } | { kind: 'none'; reason: string; anomaly?: string };

const none = (reason: string, anomaly?: string): Decision => ({
  kind: 'none',
  reason,
  ...(anomaly ? { anomaly } : {}),
});
const move = (to: MoveTarget, anomaly?: string): Decision => ({
  kind: 'move',
  move: { to, ...(anomaly ? { anomaly } : {}) },
});

/** A rail accepted the order: the payer now sees the USSD prompt. */
export function onExecutionAccepted(status: PaymentStatus): Decision {
  return status === 'PENDING' ? move('PROCESSING') : none(`already ${status}`);
}

/** Routing and failover gave up: nobody will execute this payment. */
export function onExecutionFailed(status: PaymentStatus): Decision {
  return OPEN_STATUSES.includes(status) ? move('FAILED') : none(`already ${status}`);
}

export type SettlementStatus = 'PENDING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'REFUNDED';

/** The settlement is the truth about money; this says what it does to the payment. */
export function onSettlement(status: PaymentStatus, settlement: SettlementStatus): Decision {
  switch (settlement) {
    case 'PENDING':
      return status === 'PENDING' ? move('PROCESSING') : none(`already ${status}`);
    case 'COMPLETED':
      if (OPEN_STATUSES.includes(status)) return move('COMPLETED');
      if (status === 'EXPIRED' || status === 'CANCELLED' || status === 'FAILED') {
        return move('COMPLETED', `completed_after_${status.toLowerCase()}`);
      }
      return none(`already ${status}`);
    case 'FAILED':
    case 'CANCELLED': {
      const to: MoveTarget = settlement === 'FAILED' ? 'FAILED' : 'CANCELLED';
      if (OPEN_STATUSES.includes(status)) return move(to);
      if (status === 'COMPLETED' || status === 'PARTIALLY_REFUNDED' || status === 'REFUNDED') {
        // Never downgrade money that moved; keep the contradiction for reconciliation.
        return none(`already ${status}`, `${settlement.toLowerCase()}_after_${status.toLowerCase()}`);
      }
      return none(`already ${status}`);
    }
    case 'REFUNDED':
      if (status === 'COMPLETED' || status === 'PARTIALLY_REFUNDED') return move('REFUNDED');
      if (status === 'REFUNDED') return none('already REFUNDED');
      return none(`not refundable from ${status}`, `refunded_while_${status.toLowerCase()}`);
  }
}

/** Expiry applies only while the payer could still confirm. */
export function onExpiry(status: PaymentStatus, expiresAt: string, now: Date): Decision {
  if (!OPEN_STATUSES.includes(status)) return none(`already ${status}`);
  return new Date(expiresAt).getTime() <= now.getTime() ? move('EXPIRED') : none('not yet expired');
}

/** The merchant cancels: only before the payer initiated anything. */
export function onMerchantCancel(status: PaymentStatus): Decision {
  return status === 'PENDING' ? move('CANCELLED') : none(`cannot cancel a ${status} payment`);
}

/** The payer abandons the hosted page: anything not settled yet may be cancelled. */
export function onPayerCancel(status: PaymentStatus): Decision {
  return OPEN_STATUSES.includes(status) ? move('CANCELLED') : none(`cannot cancel a ${status} payment`);
}

export function isPaymentStatus(value: string): value is PaymentStatus {
  return (PAYMENT_STATUSES as readonly string[]).includes(value);
}
