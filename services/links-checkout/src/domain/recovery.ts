import type { SessionState } from './session-state.js';

/**
 * Recovery of pay attempts whose outcome was lost (payments down or slow, or this service
 * stopped mid-attempt). Each such attempt is checked once it is old enough, by asking
 * payments for the session's payment; these rules say what its answer means.
 */

/** States a lost attempt can leave behind that only a payment event would move on. */
export const STUCK_STATES: SessionState[] = ['processing', 'pending_ussd'];

/** The payment's end as its event would have brought it, by final status. */
const EVENT_BY_FINAL_STATUS: Record<string, string> = {
  COMPLETED: 'payment.completed',
  FAILED: 'payment.failed',
  EXPIRED: 'payment.expired',
  CANCELLED: 'payment.cancelled',
};

/** What a session gets when no payment was ever made for it: the form again, and why. */
export const NOT_STARTED = {
  failureCode: 'service_unavailable',
  failureReason: 'The payment could not be started. Please try again.',
};

export type Recovery =
  /** Payments has no payment for the session: give its held use back and let the payer try again. */
  | { kind: 'no_payment' }
  /** The payment ended: apply its end as its event does (a no-op when the event came). */
  | { kind: 'ended'; eventType: string }
  /**
   * The payment is under way: its own events (at the latest its expiry) settle the session
   * and the held use. A session left in processing by an attempt that never initiated the
   * payment (its method still UNKNOWN) goes back to the form, to initiate the same payment.
   */
  | { kind: 'open'; backToForm: boolean };

export function planRecovery(
  state: SessionState,
  payment: { status: string; paymentMethod: string } | null,
): Recovery {
  if (!payment) return { kind: 'no_payment' };
  const eventType = EVENT_BY_FINAL_STATUS[payment.status];
  if (eventType) return { kind: 'ended', eventType };
  return { kind: 'open', backToForm: state === 'processing' && payment.paymentMethod === 'UNKNOWN' };
}
