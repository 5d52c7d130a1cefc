import { z } from 'zod';
import {
  AMOUNT_RANGE_MESSAGE,
  Email,
  MAX_AMOUNT,
  PayCheckoutSessionBody,
  appError,
  fieldErrors,
  validationMessage,
  type AppError,
  type ErrorCode,
} from '@mmp/protocol';

export const ListPaymentLinksQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    page: z.coerce.number().int().min(1).default(1),
    status: z.enum(['ACTIVE', 'INACTIVE', 'EXPIRED']).optional(),
  })
  .strict();

/** What the payer sends to start paying a link: the amount of a variable link and what the link collects. */
export const StartLinkBody = z
  .object({
    amount: z
      .number({ error: AMOUNT_RANGE_MESSAGE })
      .int(AMOUNT_RANGE_MESSAGE)
      .max(MAX_AMOUNT, AMOUNT_RANGE_MESSAGE)
      .optional(),
    name: z.string().trim().min(1).max(200).optional(),
    email: Email.optional(),
    phone: z.string().min(1).max(32).optional(),
    customFields: z.record(z.string(), z.string().max(500)).default({}),
  })
  .strict();
export type StartLinkBody = z.infer<typeof StartLinkBody>;

/** The hosted page pays with an operator and a number; a link's amount and fields were given at start. */
export const PaySessionBody = PayCheckoutSessionBody.pick({ paymentMethod: true, phone: true }).strict();

const CODE_BY_FIELD: Record<string, ErrorCode> = {
  amount: 'invalid_amount',
  currency: 'invalid_currency',
  email: 'invalid_email',
  'customer.email': 'invalid_email',
};

/**
 * The specification's codes where one fits (400 invalid_amount, invalid_currency,
 * invalid_email, missing_required_field), else validation_error (400); `fields` lists every
 * invalid field either way.
 */
export function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw classify(result.error, input);
}

function classify(error: z.ZodError, input: unknown): AppError {
  const fields = fieldErrors(error);
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    return appError('invalid_request', 'The request body must be a JSON object.', fields);
  }
  for (const issue of error.issues) {
    const field = issue.path.join('.');
    const value = issue.path.reduce<unknown>(
      (at, key) => (at && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined),
      input,
    );
    if (issue.code === 'invalid_type' && value === undefined)
      return appError('missing_required_field', `${field} is required`, fields);
    const code = CODE_BY_FIELD[field];
    if (code) return appError(code, issue.message, fields);
  }
  return appError('validation_error', validationMessage(fields), fields);
}

export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const result = schema.safeParse(query ?? {});
  if (result.success) return result.data;
  const fields = fieldErrors(result.error);
  throw appError('invalid_request', validationMessage(fields), fields);
}
