import { networksFor, normalizePhone } from './phone.js';

/**
 * The sandbox provider's test wallets, read by the sandbox (what it does with an order) and
 * by the hosted page's sandbox banner (what it tells the payer): one list, so the two never
 * disagree. `outcome` is `success`, or the `failureCode` the payment ends with.
 */
export const SANDBOX_OUTCOMES = [
  'success',
  'insufficient_balance',
  'pin_error',
  'transaction_limit',
  'account_inactive',
  'invalid_phone',
  'payment_expired',
] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

/**
 * The same outcomes in each currency: a page in XOF refuses a Cameroonian number, so XOF has
 * numbers of its own (Côte d'Ivoire, and Senegal for Wave), on the same last digits.
 */
export const SANDBOX_NUMBERS: readonly { phone: string; outcome: SandboxOutcome }[] = [
  // XAF, Cameroon.
  { phone: '+237690000001', outcome: 'success' },
  { phone: '+237670000001', outcome: 'success' },
  { phone: '+237690000002', outcome: 'insufficient_balance' },
  { phone: '+237690000004', outcome: 'pin_error' },
  { phone: '+237690000005', outcome: 'transaction_limit' },
  { phone: '+237690000006', outcome: 'account_inactive' },
  { phone: '+237690000007', outcome: 'invalid_phone' },
  // Accepted and never confirmed: the payment expires at its confirmation timeout.
  { phone: '+237690000003', outcome: 'payment_expired' },
  // XOF, Côte d'Ivoire (Orange Money, MTN MoMo, Moov Money) and Senegal (Wave).
  { phone: '+2250700000001', outcome: 'success' },
  { phone: '+2250500000001', outcome: 'success' },
  { phone: '+2250100000001', outcome: 'success' },
  { phone: '+221770000001', outcome: 'success' },
  { phone: '+2250700000002', outcome: 'insufficient_balance' },
  { phone: '+2250700000004', outcome: 'pin_error' },
  { phone: '+2250700000005', outcome: 'transaction_limit' },
  { phone: '+2250700000006', outcome: 'account_inactive' },
  { phone: '+2250700000007', outcome: 'invalid_phone' },
  { phone: '+2250700000003', outcome: 'payment_expired' },
];

/**
 * Payout test numbers, on top of `SANDBOX_NUMBERS` (a payout to one of those ends as its
 * payment would: success, `account_inactive`, never settled, …). A payment from one of these
 * completes like any other number, so a refund to its payer can fail or hang on purpose.
 */
export const SANDBOX_PAYOUT_NUMBERS: readonly {
  phone: string;
  outcome: 'account_inactive' | 'never_settles';
}[] = [
  { phone: '+237690000008', outcome: 'account_inactive' },
  { phone: '+237690000009', outcome: 'never_settles' },
];

/** The sandbox numbers a payer can type on a page in `currency` (the others it refuses). */
export function sandboxNumbersFor(currency: string) {
  return SANDBOX_NUMBERS.filter(({ phone }) => {
    const country = normalizePhone(phone)?.country;
    return country !== undefined && networksFor(country, currency).length > 0;
  });
}
