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

export const SANDBOX_NUMBERS: readonly { phone: string; outcome: SandboxOutcome }[] = [
  { phone: '+237690000001', outcome: 'success' },
  { phone: '+237670000001', outcome: 'success' },
  { phone: '+237690000002', outcome: 'insufficient_balance' },
  { phone: '+237690000004', outcome: 'pin_error' },
  { phone: '+237690000005', outcome: 'transaction_limit' },
  { phone: '+237690000006', outcome: 'account_inactive' },
  { phone: '+237690000007', outcome: 'invalid_phone' },
  // Accepted and never confirmed: the payment expires at its confirmation timeout.
  { phone: '+237690000003', outcome: 'payment_expired' },
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
