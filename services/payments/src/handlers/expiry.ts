import { startLoop, type Loop } from '@mmp/platform';
import { onExpiry } from '../domain/lifecycle.js';
import type { Payment } from '../domain/payment.js';
import { findExpiredOpenPayments } from '../store/payments.js';
import { transition, type TransitionResult } from './transition.js';
import type { Deps } from './deps.js';

const BATCH = 100;

export function expirePayment(deps: Deps, payment: Payment, requestId?: string): Promise<TransitionResult> {
  return transition(
    deps,
    payment.id,
    (current) => ({
      decision: onExpiry(current.status, current.expiresAt, deps.now()),
      set: { failureCode: 'payment_expired', failureReason: 'The payer did not confirm in time.' },
    }),
    requestId,
  );
}

/** Expires one batch of open payments past their deadline; returns how many it expired. */
export async function expireDuePayments(deps: Deps): Promise<number> {
  const due = await findExpiredOpenPayments(deps.db, deps.now(), BATCH);
  let expired = 0;
  for (const payment of due) {
    const result = await expirePayment(deps, payment);
    if (result.outcome === 'moved') expired += 1;
  }
  return expired;
}

/**
 * Each tick asks the store for open payments whose deadline has passed, in batches, by
 * `openUntil`: an indexed range over open payments only, so a tick never reads the settled
 * history. The deadline is stored on the payment, so a restart loses nothing: the first tick
 * after it catches up.
 */
export function startExpiryLoop(deps: Deps, intervalMs: number): Loop {
  return startLoop({
    name: 'payment_expiry',
    intervalMs,
    log: deps.log,
    metrics: deps.metrics,
    // A full batch means more may be due: keep going before sleeping.
    pass: async (signal) => {
      while (!signal.aborted && (await expireDuePayments(deps)) >= BATCH);
    },
  });
}
