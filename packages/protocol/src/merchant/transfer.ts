import { z } from 'zod';
import { PaymentToken, PayoutId, RefundId, Uuid } from '../ids.js';
import { AMOUNT_RANGE_MESSAGE, Currency, MAX_AMOUNT } from '../money.js';
import { NETWORKS, Network } from '../network.js';
import { E164 } from '../phone.js';
import { DateTime, Metadata, checkPaging, pagedList, queryInt } from './common.js';
import { oneOf } from '../one-of.js';

/**
 * Refunds and payouts: money going back out through `payout.execute` orders. Both are an
 * outbound transfer from the merchant's balance; PENDING until the provider's settlement
 * says COMPLETED or FAILED (docs/decisions.md, "Refunds and payouts").
 */
export const TRANSFER_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export const TransferStatus = oneOf(TRANSFER_STATUSES, 'status');
export type TransferStatus = z.infer<typeof TransferStatus>;

/** A refund may be smaller than the payment minimum: what remains of a partial refund may be 1 franc. */
const TransferAmount = z
  .number({ error: 'amount must be a positive integer' })
  .int('amount must be a positive integer')
  .min(1, 'amount must be a positive integer')
  .max(MAX_AMOUNT, AMOUNT_RANGE_MESSAGE);

/** How a refund or payout ended, and when: the same fields on both. */
/** How much a refund or payout moves and where it stands. */
const TRANSFER_MONEY = { amount: z.number().int(), currency: Currency, status: TransferStatus };

const TRANSFER_OUTCOME = {
  livemode: z.boolean(),
  /** A code of the catalog (account_inactive, provider_unavailable, …) when FAILED; null otherwise. */
  failureCode: z.string().nullable(),
  failureMessage: z.string().nullable(),
  createdAt: DateTime,
  updatedAt: DateTime,
  completedAt: DateTime.nullable(),
};

export const CreateRefundBody = z.strictObject({
  /** Default: all that remains of the payment. */
  amount: TransferAmount.optional(),
  reason: z.string().min(1).max(500, 'reason must be 1 to 500 characters').optional(),
});
export type CreateRefundBody = z.infer<typeof CreateRefundBody>;

export const Refund = z.strictObject({
  id: RefundId,
  object: z.literal('refund'),
  paymentToken: PaymentToken,
  ...TRANSFER_MONEY,
  reason: z.string().nullable(),
  ...TRANSFER_OUTCOME,
});
export type Refund = z.infer<typeof Refund>;

export const RefundList = z.strictObject({ data: z.array(Refund), has_more: z.boolean() });
export type RefundList = z.infer<typeof RefundList>;

export const CreatePayoutBody = z.strictObject({
  amount: TransferAmount,
  currency: Currency.default('XAF'),
  recipient: z.strictObject({ phone: E164 }),
  /** Default: the network the recipient's number belongs to. */
  network: Network.optional(),
  reference: z.string().min(1).max(100, 'reference must be 1 to 100 characters'),
  description: z.string().max(500, 'description must be at most 500 characters').optional(),
  metadata: Metadata.optional(),
});
export type CreatePayoutBody = z.infer<typeof CreatePayoutBody>;

export const Payout = z.strictObject({
  id: PayoutId,
  object: z.literal('payout'),
  projectId: Uuid,
  ...TRANSFER_MONEY,
  recipient: z.strictObject({ phone: z.string() }),
  network: Network,
  reference: z.string(),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  ...TRANSFER_OUTCOME,
});
export type Payout = z.infer<typeof Payout>;

/** GET /payouts: the payments list's pagination, its cap and its error forms (cursor or page). */
export const PayoutListQuery = z
  .strictObject({
    limit: queryInt('limit', 1, 100).default(20),
    page: queryInt('page', 1).default(1),
    starting_after: z.string().min(1).optional(),
    ending_before: z.string().min(1).optional(),
    status: TransferStatus.optional(),
    currency: Currency.optional(),
    network: z.enum(NETWORKS).optional(),
  })
  .superRefine(checkPaging('payouts'));
export type PayoutListQuery = z.output<typeof PayoutListQuery>;

export const PayoutList = pagedList(Payout);
export type PayoutList = z.infer<typeof PayoutList>;

/**
 * What a merchant may send out, per currency, for the key's project and environment:
 * `available` = completed payments - completed and in-flight refunds and payouts;
 * `pending` = refunds and payouts in flight (already out of `available`).
 */
export const BalanceAmount = z.strictObject({
  currency: Currency,
  available: z.number().int(),
  pending: z.number().int(),
});
export const Balance = z.strictObject({
  object: z.literal('balance'),
  livemode: z.boolean(),
  balances: z.array(BalanceAmount),
});
export type Balance = z.infer<typeof Balance>;
