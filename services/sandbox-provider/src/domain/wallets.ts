import { isCertificationFailureNumber, type ExecutionOrder } from '@mmp/protocol';

/**
 * The sandbox's simulated wallets: the test numbers of ARCHITECTURE.md. What happens to an
 * order is decided once, from its payee, when it is first seen.
 */
export type Plan =
  /** Accept, then settle with `settlement` after `delayMs`. */
  | { ack: 'ACCEPTED'; settlement: 'COMPLETED' | 'FAILED'; delayMs: number }
  /** Accept and never settle: the payer never confirms, the payment expires at its timeout. */
  | { ack: 'ACCEPTED'; settlement: null }
  /** Refuse at once; the reason is a payer error code, so the router fails without failover. */
  | { ack: 'REJECTED'; reason: string };

export const TEST_NUMBERS = {
  orangeSuccess: '+237690000001',
  mtnSuccess: '+237670000001',
  insufficientBalance: '+237690000002',
  noConfirmation: '+237690000003',
} as const;

/** The known success numbers settle almost at once; any other number after the configured delay. */
const QUICK_MS = 200;

export function planFor(order: Pick<ExecutionOrder, 'payee'>, otherDelayMs: number): Plan {
  const msisdn = 'msisdn' in order.payee ? order.payee.msisdn : null;
  // Certification's case 2: accepted, then a FAILED SettlementEvent.
  if (msisdn && isCertificationFailureNumber(msisdn))
    return { ack: 'ACCEPTED', settlement: 'FAILED', delayMs: QUICK_MS };
  switch (msisdn) {
    case TEST_NUMBERS.orangeSuccess:
    case TEST_NUMBERS.mtnSuccess:
      return { ack: 'ACCEPTED', settlement: 'COMPLETED', delayMs: QUICK_MS };
    case TEST_NUMBERS.insufficientBalance:
      // A wallet's balance is known before accepting, and SettlementEvent v1 has no field to
      // carry a reason: only a REJECTED ack can tell the router it is insufficient_balance.
      return { ack: 'REJECTED', reason: 'insufficient_balance' };
    case TEST_NUMBERS.noConfirmation:
      return { ack: 'ACCEPTED', settlement: null };
    default:
      return { ack: 'ACCEPTED', settlement: 'COMPLETED', delayMs: otherDelayMs };
  }
}
