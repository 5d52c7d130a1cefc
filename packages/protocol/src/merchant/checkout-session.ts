import { z } from 'zod';
import { CheckoutSessionId } from '../ids.js';
import { Currency } from '../money.js';
import { Network } from '../network.js';
import { ApiAmount, DateTime, Email, HttpUrl, Metadata } from './common.js';

export const CheckoutSessionStatus = z.enum([
  'idle',
  'processing',
  'pending_ussd',
  'success',
  'failed',
  'expired',
  'cancelled',
]);
export type CheckoutSessionStatus = z.infer<typeof CheckoutSessionStatus>;

/**
 * Nullability is ours (the specification leaves it open): what is unknown until the payer
 * acts (paymentMethod, paymentId, customer) and what a merchant may not give (logo,
 * URLs) is null rather than absent, so the page can rely on every key being there.
 * `description` is a string, empty when the merchant gave none.
 */
export const CheckoutSession = z.strictObject({
  id: CheckoutSessionId,
  url: z.url(),
  amount: z.number().int(),
  currency: Currency,
  description: z.string(),
  status: CheckoutSessionStatus,
  expiresAt: DateTime,
  createdAt: DateTime,
  merchantName: z.string(),
  merchantLogo: z.string().nullable(),
  successUrl: z.string().nullable(),
  cancelUrl: z.string().nullable(),
  paymentMethod: Network.nullable(),
  paymentId: z.string().nullable(),
  customer: z.strictObject({ email: z.string().nullable(), phone: z.string().nullable() }).nullable(),
});
export type CheckoutSession = z.infer<typeof CheckoutSession>;

export const CreateCheckoutSessionBody = z.strictObject({
  amount: ApiAmount,
  currency: Currency.default('XAF'),
  description: z.string().max(500).optional(),
  successUrl: HttpUrl.optional(),
  cancelUrl: HttpUrl.optional(),
  customer: z
    .strictObject({ email: Email.optional(), phone: z.string().min(1).max(32).optional() })
    .optional(),
  metadata: Metadata.optional(),
});
export type CreateCheckoutSessionBody = z.infer<typeof CreateCheckoutSessionBody>;

/**
 * POST /checkout/sessions/{id}/pay, public. `amount` is for variable-amount links,
 * `fields` answers the link's custom fields by key; `email` and `name` answer its
 * collect* flags. The phone is normalised and checked against the network by the service.
 */
export const PayCheckoutSessionBody = z.strictObject({
  paymentMethod: Network,
  phone: z.string().trim().min(1, 'phone is required').max(32),
  amount: ApiAmount.optional(),
  fields: z.record(z.string().max(40), z.union([z.string().max(500), z.number(), z.boolean()])).optional(),
  email: Email.optional(),
  name: z.string().trim().min(1).max(200).optional(),
});
export type PayCheckoutSessionBody = z.infer<typeof PayCheckoutSessionBody>;

/** GET /checkout/sessions/{id}/status: what the page polls while the payer confirms. */
export const CheckoutSessionStatusResponse = z.strictObject({
  id: CheckoutSessionId,
  status: CheckoutSessionStatus,
  paymentId: z.string().nullable(),
  redirectUrl: z.string().nullable(),
});
export type CheckoutSessionStatusResponse = z.infer<typeof CheckoutSessionStatusResponse>;

/** A checkout session as the hosted page reads it: environment, operators it may offer, the failure and whether to offer a retry. */
export const HostedCheckoutSession = CheckoutSession.extend({
  livemode: z.boolean(),
  operators: z.array(z.string()),
  failureCode: z.string().nullable(),
  failureReason: z.string().nullable(),
  retryable: z.boolean(),
});
export type HostedCheckoutSession = z.infer<typeof HostedCheckoutSession>;

/** The state the hosted page polls, with the payment's status and why it failed. */
export const CheckoutSessionState = CheckoutSessionStatusResponse.extend({
  paymentStatus: z.string().nullable(),
  failureCode: z.string().nullable(),
  failureReason: z.string().nullable(),
  expiresAt: z.string(),
});
export type CheckoutSessionState = z.infer<typeof CheckoutSessionState>;
