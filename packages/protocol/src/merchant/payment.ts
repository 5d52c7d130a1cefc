import { z } from 'zod';
import { PaymentToken, Uuid } from '../ids.js';
import { Currency } from '../money.js';
import { NETWORKS } from '../network.js';
import { ApiAmount, DateTime, Email, HttpUrl, Metadata, pagedList } from './common.js';
import { oneOf } from '../one-of.js';

export const PAYMENT_STATUSES = [
  'PENDING',
  'PROCESSING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'EXPIRED',
  'REFUNDED',
  'PARTIALLY_REFUNDED',
] as const;
export const PaymentStatus = oneOf(PAYMENT_STATUSES, 'status');
export type PaymentStatus = z.infer<typeof PaymentStatus>;

/** UNKNOWN until the payer picks an operator on the hosted page. */
export const PAYMENT_METHODS = [...NETWORKS, 'UNKNOWN'] as const;
export const PaymentMethod = oneOf(PAYMENT_METHODS, 'paymentMethod');
export type PaymentMethod = z.infer<typeof PaymentMethod>;

export const PaymentCustomerInput = z.strictObject({
  email: Email.optional(),
  phone: z.string().min(1).max(32).optional(),
  name: z.string().min(1).max(200).optional(),
});
export type PaymentCustomerInput = z.infer<typeof PaymentCustomerInput>;

/** What a merchant told of its customer, as a payment and its checkout session keep it (null: not told). */
export type CustomerContact = { email: string | null; phone: string | null; name: string | null };

export const CreatePaymentBody = z.strictObject({
  amount: ApiAmount,
  currency: Currency.default('XAF'),
  description: z.string().max(500, 'description must be at most 500 characters').optional(),
  returnUrl: HttpUrl.optional(),
  cancelUrl: HttpUrl.optional(),
  userId: z.uuid('userId must be a uuid').optional(),
  reference: z.string().min(1).max(100, 'reference must be 1 to 100 characters').optional(),
  customerId: z.string().min(1).max(100, 'customerId must be 1 to 100 characters').optional(),
  customer: PaymentCustomerInput.optional(),
  metadata: Metadata.optional(),
});
export type CreatePaymentBody = z.infer<typeof CreatePaymentBody>;
export type CreatePaymentInput = z.input<typeof CreatePaymentBody>;

/** Exactly the fields the specification lists for the create response. */
export const PaymentCreateResponse = z.strictObject({
  id: Uuid,
  token: PaymentToken,
  projectId: Uuid,
  amount: z.number().int(),
  currency: Currency,
  status: PaymentStatus,
  paymentUrl: z.url().nullable(),
  description: z.string().nullable(),
  livemode: z.boolean(),
  createdAt: DateTime,
  completedAt: DateTime.nullable(),
});
export type PaymentCreateResponse = z.infer<typeof PaymentCreateResponse>;

/**
 * Shapes of the expansions are ours (the specification does not show them); they are
 * present only when asked for with `expand`.
 */
export const PaymentExpandedProject = z.strictObject({ id: Uuid, name: z.string() });
export const PaymentExpandedRefund = z.strictObject({
  id: z.string(),
  amount: z.number().int(),
  status: z.string(),
  createdAt: DateTime,
});
/**
 * A timeline entry. Entries of a move to FAILED, EXPIRED or CANCELLED say why; `routing.decided`
 * entries carry provider-router's choice (see docs/flows.md).
 */
export const PaymentExpandedEvent = z.strictObject({
  id: z.string(),
  type: z.string(),
  createdAt: DateTime,
  failureCode: z.string().optional(),
  failureMessage: z.string().nullable().optional(),
  decision: z.enum(['routed', 'failover', 'no_rail']).optional(),
  railId: z.string().nullable().optional(),
  providerId: z.string().nullable().optional(),
  reason: z.string().optional(),
  skipped: z.array(z.strictObject({ railId: z.string(), reason: z.string() })).optional(),
});

/**
 * Why a payment failed, expired or was cancelled, on the payment itself: a code (the
 * specification's payer codes, `payment_expired`, `payment_cancelled`, or `provider_declined`
 * when the provider gave none) and a sentence for the merchant's support staff; both null
 * otherwise.
 */
const PaymentFailure = {
  failureCode: z.string().nullable(),
  failureMessage: z.string().nullable(),
};

export const Payment = PaymentCreateResponse.extend({
  ...PaymentFailure,
  reference: z.string().nullable(),
  paymentMethod: PaymentMethod,
  payerPhone: z.string().nullable(),
  payerName: z.string().nullable(),
  payerEmail: z.string().nullable(),
  // A loose record here: the customer profile schema lives beside the customers API.
  customer: z.record(z.string(), z.unknown()).nullable().optional(),
  project: PaymentExpandedProject.nullable().optional(),
  refunds: z.array(PaymentExpandedRefund).optional(),
  events: z.array(PaymentExpandedEvent).optional(),
}).strict();
export type Payment = z.infer<typeof Payment>;

export const PaymentListItem = z.strictObject({
  id: Uuid,
  token: PaymentToken,
  amount: z.number().int(),
  currency: Currency,
  status: PaymentStatus,
  paymentMethod: PaymentMethod,
  createdAt: DateTime,
  completedAt: DateTime.nullable(),
  ...PaymentFailure,
});
export type PaymentListItem = z.infer<typeof PaymentListItem>;

export const PaymentList = pagedList(PaymentListItem);
export type PaymentList = z.infer<typeof PaymentList>;
