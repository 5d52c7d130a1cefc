/**
 * What a merchant reads as `failureReason` (webhooks, timeline) for a failure code: plain
 * words for their support staff. Provider-router's own reasons name rails and transport
 * errors; those stay internal.
 */
const REASONS: Readonly<Record<string, string>> = {
  insufficient_balance: "The payer's wallet balance is too low.",
  account_inactive: "The payer's wallet is inactive.",
  invalid_phone: 'The phone number does not belong to the chosen operator.',
  transaction_limit: "The payment exceeds the payer's daily or monthly limit.",
  pin_error: 'The payer entered a wrong PIN.',
  provider_unavailable: 'No mobile money provider could take the payment.',
  provider_timeout: 'The mobile money provider did not answer in time.',
  service_suspended: "The provider's service is suspended.",
};

export function failureReasonFor(code: string): string {
  return REASONS[code] ?? 'The provider reported the payment as failed.';
}
