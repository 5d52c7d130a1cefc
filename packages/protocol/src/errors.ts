import { z } from 'zod';

/**
 * The 22 codes of the specification's Errors table come first, unchanged. The codes after
 * them are our decision (docs/decisions.md, "Errors"): the specification names no code for
 * malformed requests, per-field validation (422), unknown resources and routes, size and
 * media-type limits, Idempotency-Key conflicts, state conflicts, duplicate settlements,
 * bad signatures, expired orders or a rail deleted under open orders, and every one of
 * those needs a stable code.
 */
export const ErrorCode = z.enum([
  'invalid_api_key',
  'expired_api_key',
  'insufficient_permissions',
  'insufficient_balance',
  'invalid_phone',
  'transaction_limit',
  'payment_expired',
  'payment_cancelled',
  'duplicate_transaction',
  'invalid_amount',
  'invalid_currency',
  'missing_required_field',
  'invalid_email',
  'provider_unavailable',
  'provider_timeout',
  'pin_error',
  'account_inactive',
  'service_suspended',
  'rate_limit_exceeded',
  'too_many_requests',
  'internal_error',
  'service_unavailable',
  // Ours, beyond the specification:
  'invalid_request',
  'validation_error',
  'resource_not_found',
  'route_not_found',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'idempotency_conflict',
  'invalid_state',
  'duplicate_event',
  'signature_invalid',
  'order_expired',
  'rail_has_open_orders',
  'insufficient_available_balance',
  'payout_rail_unavailable',
  'live_payouts_unavailable',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The envelope's `type`: the specification only shows payment_error; the rest is ours. */
export const ErrorType = z.enum([
  'authentication_error',
  'permission_error',
  'invalid_request_error',
  'payment_error',
  'rate_limit_error',
  'api_error',
  'provider_error',
]);
export type ErrorType = z.infer<typeof ErrorType>;

export interface ErrorCatalogEntry {
  status: number;
  type: ErrorType;
}

export const errorCatalog: Readonly<Record<ErrorCode, ErrorCatalogEntry>> = {
  invalid_api_key: { status: 401, type: 'authentication_error' },
  expired_api_key: { status: 401, type: 'authentication_error' },
  insufficient_permissions: { status: 403, type: 'permission_error' },
  insufficient_balance: { status: 400, type: 'payment_error' },
  invalid_phone: { status: 400, type: 'payment_error' },
  transaction_limit: { status: 400, type: 'payment_error' },
  payment_expired: { status: 400, type: 'payment_error' },
  payment_cancelled: { status: 400, type: 'payment_error' },
  duplicate_transaction: { status: 409, type: 'invalid_request_error' },
  invalid_amount: { status: 400, type: 'invalid_request_error' },
  invalid_currency: { status: 400, type: 'invalid_request_error' },
  missing_required_field: { status: 400, type: 'invalid_request_error' },
  invalid_email: { status: 400, type: 'invalid_request_error' },
  provider_unavailable: { status: 503, type: 'provider_error' },
  provider_timeout: { status: 504, type: 'provider_error' },
  pin_error: { status: 400, type: 'payment_error' },
  account_inactive: { status: 400, type: 'payment_error' },
  service_suspended: { status: 403, type: 'provider_error' },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  too_many_requests: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  service_unavailable: { status: 503, type: 'api_error' },
  invalid_request: { status: 400, type: 'invalid_request_error' },
  validation_error: { status: 422, type: 'invalid_request_error' },
  resource_not_found: { status: 404, type: 'invalid_request_error' },
  route_not_found: { status: 404, type: 'invalid_request_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  idempotency_conflict: { status: 409, type: 'invalid_request_error' },
  invalid_state: { status: 409, type: 'invalid_request_error' },
  duplicate_event: { status: 409, type: 'invalid_request_error' },
  signature_invalid: { status: 403, type: 'authentication_error' },
  order_expired: { status: 410, type: 'invalid_request_error' },
  rail_has_open_orders: { status: 409, type: 'invalid_request_error' },
  // The gates of refunds and payouts (docs/decisions.md, "Refunds and payouts").
  insufficient_available_balance: { status: 400, type: 'invalid_request_error' },
  payout_rail_unavailable: { status: 409, type: 'invalid_request_error' },
  live_payouts_unavailable: { status: 403, type: 'permission_error' },
};

export const FieldError = z.strictObject({ field: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

/** What travels between services (NATS service error data) and into both public forms. */
export const AppErrorBody = z.strictObject({
  code: ErrorCode,
  message: z.string(),
  fields: z.array(FieldError).optional(),
});
export type AppErrorBody = z.infer<typeof AppErrorBody>;

/**
 * The one error type of the system. `message` is public; anything internal goes in
 * `cause`, which the error handlers log but never serialise.
 */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly fields?: FieldError[];

  constructor(code: ErrorCode, message: string, fields?: FieldError[], options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.status = errorCatalog[code].status;
    this.type = errorCatalog[code].type;
    if (fields && fields.length > 0) this.fields = fields;
  }

  toBody(): AppErrorBody {
    return this.fields
      ? { code: this.code, message: this.message, fields: this.fields }
      : { code: this.code, message: this.message };
  }
}

export function appError(
  code: ErrorCode,
  message: string,
  fields?: FieldError[],
  options?: { cause?: unknown },
): AppError {
  return new AppError(code, message, fields, options);
}

/** Duck-typed as well as instanceof: two copies of this package (dist and source) may meet. */
export function isAppError(value: unknown): value is AppError {
  if (value instanceof AppError) return true;
  if (!(value instanceof Error)) return false;
  const candidate = value as Error & { code?: unknown; status?: unknown };
  return (
    candidate.name === 'AppError' &&
    ErrorCode.safeParse(candidate.code).success &&
    typeof candidate.status === 'number'
  );
}
