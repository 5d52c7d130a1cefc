import { onExpiry } from '../domain/lifecycle.js';
import type { Payment } from '../domain/payment.js';
import { findExpiredOpenPayments } from '../store/payments.js';
import type { Deps } from '../deps.js';
import { transition, type TransitionResult } from './transition.js';

const BATCH = 100;

export function expirePayment(deps: Deps, payment: Payment, requestId?: string): Promise<TransitionResult> {
  return transition(
    deps,
    payment,
    (current) => ({
      decision: onExpiry(current.status, current.expiresAt, deps.now()),
      set: { failureCode: 'payment_expired', failureReason: 'The payer did not confirm in time.' },
    }),
    requestId,
  );
}

/** Expires one batch of open payments past their deadline; returns how many it expired. */
async function expireBatch(deps: Deps): Promise<number> {
  const due = await findExpiredOpenPayments(deps.db, deps.now(), BATCH);
  let expired = 0;
  for (const payment of due) {
    const result = await expirePayment(deps, payment);
    if (result.outcome === 'moved') expired += 1;
  }
  return expired;
}

/**
 * One pass of the expiry loop: open payments whose deadline has passed, in batches, by
 * `openUntil`: an indexed range over open payments only, so a pass never reads the settled
 * history. The deadline is stored on the payment, so a restart loses nothing: the first pass
 * after it catches up. A full batch means more may be due: keep going before sleeping.
 */
export async function expireDuePayments(deps: Deps, signal: AbortSignal): Promise<void> {
  while (!signal.aborted && (await expireBatch(deps)) >= BATCH);
}
