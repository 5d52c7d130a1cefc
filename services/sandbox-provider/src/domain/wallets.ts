import {
  SANDBOX_NUMBERS,
  SANDBOX_PAYOUT_NUMBERS,
  isCertificationFailureNumber,
  type ExecutionOrder,
} from '@mmp/protocol';

/**
 * The sandbox's simulated wallets: the test numbers of `SANDBOX_NUMBERS`. What happens to an
 * order is decided once, from its payee, when it is first seen.
 */
export type Plan =
  /** Accept, then settle with `settlement` after `delayMs`. */
  | { ack: 'ACCEPTED'; settlement: 'COMPLETED' | 'FAILED'; delayMs: number }
  /** Accept and never settle: the payer never confirms, the payment expires at its timeout. */
  | { ack: 'ACCEPTED'; settlement: null }
  /** Refuse at once; the reason is a payer error code, so the router fails without failover. */
  | { ack: 'REJECTED'; reason: string };

/** The known success numbers settle almost at once; any other number after the configured delay. */
const QUICK_MS = 200;

export function planFor(order: Pick<ExecutionOrder, 'payee' | 'type'>, otherDelayMs: number): Plan {
  const msisdn = 'msisdn' in order.payee ? order.payee.msisdn : null;
  // Certification's case 2: accepted, then a FAILED SettlementEvent.
  if (msisdn && isCertificationFailureNumber(msisdn))
    return { ack: 'ACCEPTED', settlement: 'FAILED', delayMs: QUICK_MS };
  const payoutOutcome =
    order.type === 'payout.execute'
      ? SANDBOX_PAYOUT_NUMBERS.find((wallet) => wallet.phone === msisdn)?.outcome
      : undefined;
  if (payoutOutcome === 'never_settles') return { ack: 'ACCEPTED', settlement: null };
  if (payoutOutcome) return { ack: 'REJECTED', reason: payoutOutcome };
  const outcome = SANDBOX_NUMBERS.find((wallet) => wallet.phone === msisdn)?.outcome;
  switch (outcome) {
    case undefined:
      return { ack: 'ACCEPTED', settlement: 'COMPLETED', delayMs: otherDelayMs };
    case 'success':
      return { ack: 'ACCEPTED', settlement: 'COMPLETED', delayMs: QUICK_MS };
    case 'payment_expired':
      return { ack: 'ACCEPTED', settlement: null };
    default:
      // A payer error is known before accepting, and SettlementEvent v1 has no field to carry
      // a reason: only a REJECTED ack can tell the router why.
      return { ack: 'REJECTED', reason: outcome };
  }
}
