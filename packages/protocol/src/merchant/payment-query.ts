import { z } from 'zod';
import { Currency } from '../money.js';
import { DateTime, checkPaging, listParam, queryInt, queryNumber } from './common.js';
import { PaymentMethod, PaymentStatus } from './payment.js';

export const PAYMENT_EXPANSIONS = ['customer', 'project', 'refunds', 'events'] as const;
export const PaymentExpand = z.enum(PAYMENT_EXPANSIONS, {
  error: `expand must list ${PAYMENT_EXPANSIONS.join(', ')}`,
});
export type PaymentExpand = z.infer<typeof PaymentExpand>;

const DateParam = z.union([DateTime, z.iso.date()], { error: 'must be an ISO 8601 date or date-time' });

function mergeExpand(a: PaymentExpand[] | undefined, b: PaymentExpand[] | undefined): PaymentExpand[] {
  return [...new Set([...(a ?? []), ...(b ?? [])])];
}

/** Query of GET /payments/{token}: the list names it `expand[]`, so both names are accepted. */
export const PaymentRetrieveQuery = z
  .strictObject({
    expand: listParam(PaymentExpand).optional(),
    'expand[]': listParam(PaymentExpand).optional(),
  })
  .transform(({ expand, 'expand[]': bracketed }) => ({ expand: mergeExpand(expand, bracketed) }));
export type PaymentRetrieveQuery = z.output<typeof PaymentRetrieveQuery>;

/**
 * Query of GET /payments. Unknown parameters are refused (400) rather than ignored, so a
 * misspelt filter never silently returns everything. `search` matches reference, token,
 * phone or name. It pages as every paged list does (checkPaging).
 */
const checkPayments = checkPaging('payments');

export const PaymentListQuery = z
  .strictObject({
    limit: queryInt('limit', 1, 100).default(20),
    starting_after: z.string().min(1).optional(),
    ending_before: z.string().min(1).optional(),
    page: queryInt('page', 1).default(1),
    status: PaymentStatus.optional(),
    paymentMethod: PaymentMethod.optional(),
    // The specification types them as numbers of at least 0, not integers.
    minAmount: queryNumber('minAmount', 0).optional(),
    maxAmount: queryNumber('maxAmount', 0).optional(),
    startDate: DateParam.optional(),
    endDate: DateParam.optional(),
    currency: Currency.optional(),
    search: z.string().trim().min(1).max(100).optional(),
    expand: listParam(PaymentExpand).optional(),
    'expand[]': listParam(PaymentExpand).optional(),
  })
  .superRefine((q, ctx) => {
    checkPayments(q, ctx);
    if (q.minAmount !== undefined && q.maxAmount !== undefined && q.minAmount > q.maxAmount) {
      ctx.addIssue({ code: 'custom', path: ['maxAmount'], message: 'maxAmount must be at least minAmount' });
    }
    if (q.startDate && q.endDate && Date.parse(q.startDate) > Date.parse(q.endDate)) {
      ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'endDate must not be before startDate' });
    }
  })
  .transform(({ 'expand[]': bracketed, expand, ...rest }) => ({
    ...rest,
    expand: mergeExpand(expand, bracketed),
  }));
export type PaymentListQuery = z.output<typeof PaymentListQuery>;
export type PaymentListQueryInput = z.input<typeof PaymentListQuery>;

/** GET /payments/user/{userId}: newest first, `limit` defaults to and caps at 100. */
export const UserPaymentsQuery = z.strictObject({ limit: queryInt('limit', 1, 100).default(100) });
export type UserPaymentsQuery = z.output<typeof UserPaymentsQuery>;
