import { z } from 'zod';
import { Currency } from '../money.js';
import { Network } from '../network.js';

/** The specification's certification table: 12 cases, 13 to 17 repeat 8 to 12 with payout.execute. */
export const CERTIFICATION_CASES = [
  { number: 1, name: 'Valid COMPLETED SettlementEvent', expected: 'Accepted end to end' },
  {
    number: 2,
    name: 'FAILED settlement',
    expected: 'Processed without wrongly changing the transaction',
  },
  { number: 3, name: 'Decimal major-unit amount', expected: 'Accepted; cents rejected' },
  { number: 4, name: 'Repeated idempotency_key', expected: 'Detected as duplicate (409) and ignored' },
  { number: 5, name: 'Status outside vocabulary', expected: '422 naming the field' },
  { number: 6, name: 'Malformed settled_at', expected: '422' },
  { number: 7, name: 'Signature mismatch', expected: 'Rejected (403)' },
  { number: 8, name: 'Outbound payment.execute signed', expected: 'ACCEPTED ack with key echoed' },
  { number: 9, name: 'Ack echoing a different idempotency_key', expected: 'Failed delivery' },
  { number: 10, name: 'Endpoint answering HTTP 500', expected: 'Delivery fails explicitly' },
  { number: 11, name: 'Silent endpoint', expected: 'Fails with explicit TIMEOUT' },
  { number: 12, name: 'Handler holding the wrong secret', expected: 'Rejects the signature (401)' },
] as const;

/** The payout cases: 13 to 17 repeat 8 to 12 with payout.execute, on a rail that supports payouts. */
export const PAYOUT_CERTIFICATION_CASES = CERTIFICATION_CASES.filter((entry) => entry.number >= 8).map(
  (entry) => ({
    number: entry.number + 5,
    name: `${entry.name.replace('payment.execute', 'payout.execute')}${entry.name.includes('payment.execute') ? '' : ' (payout.execute)'}`,
    expected: entry.expected,
  }),
);

/** The cases of a full run: 12, or 17 when the rail supports payouts. */
export function certificationCasesFor(
  supportsPayout: boolean,
): { number: number; name: string; expected: string }[] {
  return supportsPayout ? [...CERTIFICATION_CASES, ...PAYOUT_CERTIFICATION_CASES] : [...CERTIFICATION_CASES];
}

export const MAX_CASE_NUMBER = 17;
export const CaseNumber = z.coerce
  .number({ error: `case must be a number from 1 to ${MAX_CASE_NUMBER}` })
  .int(`case must be a number from 1 to ${MAX_CASE_NUMBER}`)
  .min(1, `case must be a number from 1 to ${MAX_CASE_NUMBER}`)
  .max(MAX_CASE_NUMBER, `case must be a number from 1 to ${MAX_CASE_NUMBER}`);

/**
 * The payees of certification orders, per network: `success` is the sandbox success number
 * (the adapter settles COMPLETED), `failure` a number the adapter accepts and then settles
 * FAILED (case 2), outside the sandbox's own test numbers (`…0001` to `…0007`). The kit's example adapter and the sandbox provider both honour them.
 */
export const CERTIFICATION_NUMBERS: Record<Network, { success: string; failure: string }> = {
  ORANGE_MONEY: { success: '+237690000001', failure: '+237690000099' },
  MTN_MOMO: { success: '+237670000001', failure: '+237670000099' },
  WAVE: { success: '+221770000001', failure: '+221770000099' },
  MOOV_MONEY: { success: '+2250100000001', failure: '+2250100000099' },
};

/** Every certification failure number: an adapter settles an order to one of them FAILED. */
export function isCertificationFailureNumber(msisdn: string): boolean {
  return Object.values(CERTIFICATION_NUMBERS).some((numbers) => numbers.failure === msisdn);
}

/** A rail's channel: what the CERTIFIED badge belongs to, with the provider. */
export const Channel = z.object({
  network: Network,
  country: z.string().regex(/^[A-Z]{2}$/, 'country must be an ISO 3166-1 alpha-2 code'),
  currency: Currency,
});
export type Channel = z.infer<typeof Channel>;

/** One HTTP message of a case, secrets replaced by `[redacted]`. */
export const ExchangedMessage = z.object({
  label: z.string(),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().nullable(),
  }),
  response: z
    .object({
      status: z.number().int(),
      headers: z.record(z.string(), z.string()),
      body: z.string().nullable(),
    })
    .nullable(),
  /** Why there is no response: timeout, refused connection, withheld by the fault relay. */
  note: z.string().nullable(),
});
export type ExchangedMessage = z.infer<typeof ExchangedMessage>;

export const CaseStatus = z.enum(['PENDING', 'RUNNING', 'PASSED', 'FAILED']);
export type CaseStatus = z.infer<typeof CaseStatus>;

export const CertificationCaseResult = z.object({
  number: z.number().int(),
  name: z.string(),
  expected: z.string(),
  observed: z.string().nullable(),
  status: CaseStatus,
  latencyMs: z.number().nullable(),
  exchanges: z.array(ExchangedMessage),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type CertificationCaseResult = z.infer<typeof CertificationCaseResult>;

export const RunStatus = z.enum(['RUNNING', 'PASSED', 'FAILED']);
export type RunStatus = z.infer<typeof RunStatus>;

/** A certification run as the provider portal, `mmp certify` and the JSON report show it. */
export const CertificationRunView = z
  .object({
    id: z.string(),
    providerId: z.string(),
    railId: z.string(),
    transport: z.enum(['webhook', 'pull']),
    channel: Channel,
    /** `full` runs every case and decides the badge; `single` re-runs one case and never does. */
    kind: z.enum(['full', 'single']),
    status: RunStatus,
    summary: z.object({
      total: z.number().int(),
      passed: z.number().int(),
      failed: z.number().int(),
    }),
    /** What the run did to the channel's badge: CERTIFIED, UNCERTIFIED or unchanged (null). */
    badge: z.enum(['CERTIFIED', 'UNCERTIFIED']).nullable(),
    cases: z.array(CertificationCaseResult),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    durationMs: z.number().nullable(),
  })
  .meta({ title: 'CertificationRun', description: 'A certification run with the evidence of each case' });
export type CertificationRunView = z.infer<typeof CertificationRunView>;

/** Starting a run: the channel defaults to the rail's first network, country and currency. */
export const StartRunInput = z.strictObject({
  network: Network.optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'country must be an ISO 3166-1 alpha-2 code')
    .optional(),
  currency: Currency.optional(),
});
export type StartRunInput = z.infer<typeof StartRunInput>;

/** The paymentId a certification order carries in order.created: no payment has it. */
export function certificationPaymentId(orderKey: string): string {
  return `cert_${orderKey}`;
}
export function isCertificationPaymentId(paymentId: string): boolean {
  return paymentId.startsWith('cert_');
}
