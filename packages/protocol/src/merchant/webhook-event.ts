import { z } from 'zod';
import { EventId, PaymentToken } from '../ids.js';
import { Payout, Refund } from './transfer.js';
import { Currency } from '../money.js';
import { DateTime } from './common.js';
import { PaymentMethod, PaymentStatus } from './payment.js';
import { oneOf } from '../one-of.js';

export const MERCHANT_WEBHOOK_EVENT_TYPES = [
  'transaction.completed',
  'transaction.failed',
  'transaction.expired',
  'transaction.cancelled',
  'transaction.refunded',
  'payout.completed',
  'payout.failed',
] as const;
export const MerchantWebhookEventType = oneOf(MERCHANT_WEBHOOK_EVENT_TYPES);
export type MerchantWebhookEventType = z.infer<typeof MerchantWebhookEventType>;

/** The specification shows token, amount, currency and status; the rest lets a merchant reconcile without a call back. */
export const MerchantWebhookEventData = z.strictObject({
  token: PaymentToken,
  amount: z.number().int(),
  currency: Currency,
  status: PaymentStatus,
  reference: z.string().nullable(),
  paymentMethod: PaymentMethod,
  payerPhone: z.string().nullable(),
  completedAt: DateTime.nullable(),
  metadata: z.record(z.string(), z.unknown()),
  /** Why the payment failed, expired or was cancelled (a code of the catalog); null otherwise. */
  failureCode: z.string().nullable(),
  failureMessage: z.string().nullable(),
});
export type MerchantWebhookEventData = z.infer<typeof MerchantWebhookEventData>;

/**
 * `transaction.refunded` carries the payment (its status REFUNDED or PARTIALLY_REFUNDED) and
 * the refund that moved it; `payout.completed` and `payout.failed` carry the payout.
 */
export const MerchantRefundWebhookEventData = MerchantWebhookEventData.extend({ refund: Refund }).strict();
export type MerchantRefundWebhookEventData = z.infer<typeof MerchantRefundWebhookEventData>;

export const MerchantWebhookEvent = z.union([
  z.strictObject({
    id: EventId,
    type: MerchantWebhookEventType.exclude(['payout.completed', 'payout.failed']),
    createdAt: DateTime,
    livemode: z.boolean(),
    data: z.union([MerchantRefundWebhookEventData, MerchantWebhookEventData]),
  }),
  z.strictObject({
    id: EventId,
    type: z.enum(['payout.completed', 'payout.failed']),
    createdAt: DateTime,
    livemode: z.boolean(),
    data: Payout,
  }),
]);
export type MerchantWebhookEvent = z.infer<typeof MerchantWebhookEvent>;
