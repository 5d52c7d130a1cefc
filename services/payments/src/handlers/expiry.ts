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
 * Each tick asks the store for open payments whose `expiresAt` has passed (an indexed
 * range query, never a scan) in batches. The deadline is stored on the payment, so a
 * restart loses nothing: the first tick after it catches up.
 */
export function startExpiryLoop(deps: Deps, intervalMs: number) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      // A full batch means more may be due: keep going before sleeping.
      while ((await expireDuePayments(deps)) >= BATCH && timer);
    })()
      .catch((error) => deps.log.warn({ err: error }, 'expiry pass failed'))
      .finally(() => {
        if (timer) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
