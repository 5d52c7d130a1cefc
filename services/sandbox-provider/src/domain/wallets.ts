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

/**
 * How long a settlement takes: `listedMs` for the listed numbers (success and certification
 * failure), which settle almost at once, and `otherMs` for any other number.
 */
export type SettleDelays = { listedMs: number; otherMs: number };

export function planFor(order: Pick<ExecutionOrder, 'payee' | 'type'>, delays: SettleDelays): Plan {
  const msisdn = 'msisdn' in order.payee ? order.payee.msisdn : null;
  // Certification's case 2: accepted, then a FAILED SettlementEvent.
  if (msisdn && isCertificationFailureNumber(msisdn))
    return { ack: 'ACCEPTED', settlement: 'FAILED', delayMs: delays.listedMs };
  const payoutOutcome =
    order.type === 'payout.execute'
      ? SANDBOX_PAYOUT_NUMBERS.find((wallet) => wallet.phone === msisdn)?.outcome
      : undefined;
  if (payoutOutcome === 'never_settles') return { ack: 'ACCEPTED', settlement: null };
  if (payoutOutcome) return { ack: 'REJECTED', reason: payoutOutcome };
  const outcome = SANDBOX_NUMBERS.find((wallet) => wallet.phone === msisdn)?.outcome;
  switch (outcome) {
    case undefined:
      return { ack: 'ACCEPTED', settlement: 'COMPLETED', delayMs: delays.otherMs };
    case 'success':
      return { ack: 'ACCEPTED', settlement: 'COMPLETED', delayMs: delays.listedMs };
    case 'payment_expired':
      return { ack: 'ACCEPTED', settlement: null };
    default:
      // A payer error is known before accepting, and SettlementEvent v1 has no field to carry
      // a reason: only a REJECTED ack can tell the router why.
      return { ack: 'REJECTED', reason: outcome };
  }
}
