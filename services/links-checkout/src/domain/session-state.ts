import type { CheckoutSessionStatus } from '@mmp/protocol';

/**
 * The checkout session's state machine as data. The session follows its payment: each
 * payment event moves it by compare-and-set from one of `from` to `to`, so a replayed or
 * late event changes nothing.
 */
export type SessionState = CheckoutSessionStatus;

export const OPEN_STATES: SessionState[] = ['idle', 'processing', 'pending_ussd'];
export const FINAL_STATES: SessionState[] = ['success', 'failed', 'expired', 'cancelled'];

/**
 * Where a session can stand once a pay attempt took effect: under way, waiting on the phone,
 * or over. A same-key retry of that pay finds it in one of these.
 */
export const ATTEMPTED_STATES: SessionState[] = ['processing', 'pending_ussd', 'success', 'failed'];

export type SessionMove = { from: SessionState[]; to: SessionState };

/**
 * A completed payment wins over anything but success: money moved even when the page
 * had already given up (expired, cancelled), and the payer must see it.
 */
export const MOVES_BY_EVENT: Record<string, SessionMove> = {
  // From processing too: the payment is under way, so a pay attempt whose answer is still
  // awaited (or was lost) is over.
  'payment.initiated': { from: ['idle', 'processing'], to: 'processing' },
  'payment.processing': { from: ['idle', 'processing'], to: 'pending_ussd' },
  'payment.completed': {
    from: ['idle', 'processing', 'pending_ussd', 'failed', 'expired', 'cancelled'],
    to: 'success',
  },
  'payment.failed': { from: OPEN_STATES, to: 'failed' },
  'payment.expired': { from: OPEN_STATES, to: 'expired' },
  'payment.cancelled': { from: OPEN_STATES, to: 'cancelled' },
};

export function isFinal(state: SessionState): boolean {
  return FINAL_STATES.includes(state);
}

/**
 * The state of a session made from its payment as payments has it now (the session of a
 * merchant's payment, made when the payer opens it first or from an event of the payment under way).
 */
export function stateOfPayment(payment: { status: string; paymentMethod: string }): SessionState {
  switch (payment.status) {
    case 'COMPLETED':
    case 'REFUNDED':
    case 'PARTIALLY_REFUNDED':
      return 'success';
    case 'FAILED':
      return 'failed';
    case 'EXPIRED':
      return 'expired';
    case 'CANCELLED':
      return 'cancelled';
    case 'PROCESSING':
      return 'pending_ussd';
    default:
      return payment.paymentMethod === 'UNKNOWN' ? 'idle' : 'processing';
  }
}

/**
 * What a session gets when the process of its pay attempt died before payments answered:
 * the form again, and why (no payment was initiated; a payment made meanwhile is the same one
 * the next attempt uses).
 */
export const ATTEMPT_LOST = {
  failureCode: 'service_unavailable',
  failureReason: 'The payment could not be started. Please try again.',
} as const;

/** Where a session came from decides what the payer may do after a failure. */
export type SessionOrigin = 'payment' | 'merchant' | 'link';

/**
 * A session carries one payment: after a failure or an expiry only a link can start a
 * fresh one (a new session of the same link). A merchant's payment or session ends there.
 */
export function canRetry(state: SessionState, origin: SessionOrigin): boolean {
  return origin === 'link' && (state === 'failed' || state === 'expired');
}

export const CANCELLABLE_STATES: SessionState[] = OPEN_STATES;

/** Sessions expire after a period of inactivity; every accepted action pushes the date. */
export function nextExpiry(now: Date, ttlSeconds: number, hardLimit?: Date | null): Date {
  const candidate = new Date(now.getTime() + ttlSeconds * 1000);
  return hardLimit && hardLimit < candidate ? hardLimit : candidate;
}
