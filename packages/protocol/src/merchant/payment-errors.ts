import type { z } from 'zod';
import { appError, type AppError, type ErrorCode } from '../errors.js';
import { AMOUNT_RANGE_MESSAGE } from '../money.js';
import { ROOT_FIELD, fieldErrors, validationMessage } from '../zod-errors.js';
import { CreatePaymentBody } from './payment.js';

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** A missing field: known for sure with the input at hand, else recognised by zod's wording. */
function isMissing(issue: z.core.$ZodIssue, input: unknown, hasInput: boolean): boolean {
  if (issue.code !== 'invalid_type') return false;
  if (hasInput) return valueAt(input, issue.path) === undefined;
  return / is required$|received undefined$/.test(issue.message);
}

function codeFor(issue: z.core.$ZodIssue, input: unknown, hasInput: boolean): ErrorCode | null {
  const field = issue.path.join('.');
  if (isMissing(issue, input, hasInput)) return 'missing_required_field';
  if (field === 'amount') return 'invalid_amount';
  if (field === 'currency') return 'invalid_currency';
  if (field === 'customer.email') return 'invalid_email';
  return null;
}

const MESSAGES: Partial<Record<ErrorCode, (field: string) => string>> = {
  missing_required_field: (field) => `${field} is required`,
  invalid_amount: () => AMOUNT_RANGE_MESSAGE,
  invalid_currency: () => 'currency must be XAF or XOF',
  invalid_email: (field) => `${field} must be a valid e-mail address`,
};

/**
 * Maps a failed CreatePaymentBody parse to the specification's codes (400
 * invalid_amount, invalid_currency, missing_required_field, invalid_email), first
 * matching issue wins; anything else is validation_error (400 at the gateway). `fields` always lists
 * every invalid field. Pass the input when you have it: missing is then certain.
 */
export function classifyCreatePaymentError(error: z.ZodError, ...input: [unknown?]): AppError {
  const hasInput = input.length > 0;
  const fields = fieldErrors(error);
  if (error.issues.some((issue) => issue.path.length === 0 && issue.code === 'invalid_type')) {
    return appError('invalid_request', 'The request body must be a JSON object.', fields);
  }
  for (const issue of error.issues) {
    const code = codeFor(issue, input[0], hasInput);
    if (code) {
      const field = issue.path.length > 0 ? issue.path.join('.') : ROOT_FIELD;
      return appError(code, MESSAGES[code]?.(field) ?? issue.message, fields);
    }
  }
  return appError('validation_error', validationMessage(fields), fields);
}

export type CreatePaymentParse = { ok: true; value: CreatePaymentBody } | { ok: false; error: AppError };

export function parseCreatePaymentBody(input: unknown): CreatePaymentParse {
  const result = CreatePaymentBody.safeParse(input);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, error: classifyCreatePaymentError(result.error, input) };
}
