import { z } from 'zod';
import { ShortCode, Uuid } from '../ids.js';
import { AMOUNT_RANGE_MESSAGE, Currency, MAX_AMOUNT, MIN_AMOUNT } from '../money.js';
import { ApiAmount, DateTime, requiredMessage } from './common.js';

export const PaymentLinkStatus = z.enum(['ACTIVE', 'INACTIVE', 'EXPIRED']);
export type PaymentLinkStatus = z.infer<typeof PaymentLinkStatus>;

export const CustomFieldType = z.enum(['text', 'email', 'phone', 'number', 'select']);
export type CustomFieldType = z.infer<typeof CustomFieldType>;

/** The specification leaves the element shape open; `key` is what the payer's answer is stored under. */
export const CustomField = z
  .strictObject({
    key: z
      .string()
      .regex(
        /^[a-z][a-z0-9_]{0,39}$/,
        'key must be lower-case letters, digits or _, starting with a letter, at most 40',
      ),
    label: z.string().trim().min(1).max(80),
    type: CustomFieldType,
    required: z.boolean().default(false),
    options: z.array(z.string().trim().min(1).max(80)).min(1).max(50).optional(),
  })
  .superRefine((field, ctx) => {
    if (field.type === 'select' && !field.options)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'a select field needs options' });
    if (field.type !== 'select' && field.options)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'options apply only to select fields' });
  });
export type CustomField = z.infer<typeof CustomField>;

export const MAX_CUSTOM_FIELDS = 10;
const CustomFields = z
  .array(CustomField)
  .max(MAX_CUSTOM_FIELDS, `at most ${MAX_CUSTOM_FIELDS} custom fields`)
  .refine(
    (fields) => new Set(fields.map((f) => f.key)).size === fields.length,
    'custom field keys must be unique',
  );

const RangeAmount = z
  .number()
  .int(AMOUNT_RANGE_MESSAGE)
  .min(MIN_AMOUNT, AMOUNT_RANGE_MESSAGE)
  .max(MAX_AMOUNT, AMOUNT_RANGE_MESSAGE);
// The only clock read of the package: a link created already expired is a mistake to refuse now.
const FutureDateTime = DateTime.refine(
  (value) => Date.parse(value) > Date.now(),
  'expiresAt must be in the future',
);

/** Fields shared by create and update, without defaults so that a partial update stays partial. */
const linkFields = {
  name: z
    .string({
      error: (issue) => (issue.input === undefined ? requiredMessage('name') : 'name must be a string'),
    })
    .trim()
    .min(1, requiredMessage('name'))
    .max(100, 'name must be at most 100 characters'),
  description: z.string().max(500).nullable(),
  amount: ApiAmount.nullable(),
  currency: Currency,
  minAmount: RangeAmount.nullable(),
  maxAmount: RangeAmount.nullable(),
  collectPhone: z.boolean(),
  collectEmail: z.boolean(),
  collectName: z.boolean(),
  customFields: CustomFields,
  maxUses: z.number().int().min(1, 'maxUses must be at least 1').nullable(),
  expiresAt: FutureDateTime.nullable(),
};

type AmountRule = { amount?: number | null; minAmount?: number | null; maxAmount?: number | null };
function checkAmounts(body: AmountRule, ctx: z.RefinementCtx): void {
  const fixed = body.amount !== undefined && body.amount !== null;
  if (fixed && ((body.minAmount ?? null) !== null || (body.maxAmount ?? null) !== null)) {
    ctx.addIssue({
      code: 'custom',
      path: ['minAmount'],
      message: 'minAmount and maxAmount apply only to variable-amount links (amount null)',
    });
  }
  if (body.minAmount != null && body.maxAmount != null && body.minAmount > body.maxAmount) {
    ctx.addIssue({ code: 'custom', path: ['maxAmount'], message: 'maxAmount must be at least minAmount' });
  }
}

export const CreatePaymentLinkBody = z
  .strictObject({
    ...linkFields,
    description: linkFields.description.optional(),
    amount: linkFields.amount.optional(),
    currency: Currency.default('XAF'),
    minAmount: linkFields.minAmount.optional(),
    maxAmount: linkFields.maxAmount.optional(),
    collectPhone: z.boolean().default(false),
    collectEmail: z.boolean().default(false),
    collectName: z.boolean().default(false),
    customFields: CustomFields.default([]),
    maxUses: linkFields.maxUses.optional(),
    expiresAt: linkFields.expiresAt.optional(),
  })
  .superRefine(checkAmounts);
export type CreatePaymentLinkBody = z.infer<typeof CreatePaymentLinkBody>;

export const UpdatePaymentLinkBody = z
  .object({ ...linkFields, status: z.enum(['ACTIVE', 'INACTIVE']) })
  .partial()
  .strict()
  .superRefine((body, ctx) => {
    if (Object.keys(body).length === 0)
      ctx.addIssue({ code: 'custom', path: [], message: 'give at least one field to update' });
    checkAmounts(body, ctx);
  });
export type UpdatePaymentLinkBody = z.infer<typeof UpdatePaymentLinkBody>;

export const PaymentLink = z.strictObject({
  id: Uuid,
  shortCode: ShortCode,
  url: z.url(),
  name: z.string(),
  description: z.string().nullable(),
  amount: z.number().int().nullable(),
  currency: Currency,
  minAmount: z.number().int().nullable(),
  maxAmount: z.number().int().nullable(),
  status: PaymentLinkStatus,
  collectPhone: z.boolean(),
  collectEmail: z.boolean(),
  collectName: z.boolean(),
  customFields: z.array(CustomField),
  maxUses: z.number().int().nullable(),
  usageCount: z.number().int().nonnegative(),
  expiresAt: DateTime.nullable(),
  /** Ours (the specification does not list it): the environment the link takes payments in. */
  livemode: z.boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type PaymentLink = z.infer<typeof PaymentLink>;

/** GET /pay/{shortCode}: what the public page needs besides the link itself. */
export const PublicPaymentLink = PaymentLink.extend({
  merchantName: z.string(),
  merchantLogo: z.string().nullable(),
  projectId: Uuid,
}).strict();
export type PublicPaymentLink = z.infer<typeof PublicPaymentLink>;

export const PaymentLinkList = z.object({
  data: z.array(PaymentLink),
  has_more: z.boolean(),
  meta: z.object({ limit: z.number().int(), total: z.number().int(), page: z.number().int() }),
});
export type PaymentLinkList = z.infer<typeof PaymentLinkList>;

/** What a payer gives to start paying a link (the link page's form). */
export const StartPaymentLinkBody = z.object({
  amount: z
    .number()
    .int()
    .optional()
    .describe('Required for variable-amount links, within minAmount and maxAmount'),
  name: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  customFields: z
    .record(z.string(), z.string())
    .optional()
    .describe("Answers to the link's custom fields, by key"),
});
export type StartPaymentLinkBody = z.infer<typeof StartPaymentLinkBody>;
