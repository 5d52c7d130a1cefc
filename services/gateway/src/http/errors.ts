import {
  appError,
  errorCatalog,
  isAppError,
  toEnvelopeError,
  toSimpleError,
  type AppError,
  type ErrorCode,
} from '@mmp/protocol';
import type { DocumentedRoute } from '../routes/route.js';

export type ErrorForm = 'simple' | 'envelope';

/**
 * Who a route answers. The specification gives 400 for validation on the merchant's
 * operations and keeps 422 for protocol validation: `validation_error` (422 in the catalog,
 * which the services raise) is answered 400 on every route but the provider's (portal,
 * orders, settlements), where what is refused is what the provider protocol sends.
 */
export type ErrorAudience = 'merchant' | 'provider';

export function httpStatus(code: ErrorCode, audience: ErrorAudience): number {
  return code === 'validation_error' && audience === 'merchant' ? 400 : errorCatalog[code].status;
}

/** The provider's routes (portal, orders, settlements) answer in the protocol's terms. */
export function audienceOf(route: Pick<DocumentedRoute, 'auth'>): ErrorAudience {
  return route.auth === 'provider' || route.auth === 'signed' ? 'provider' : 'merchant';
}

/** Fastify's own failures (parsing, limits) as the coded errors our clients read. */
const FASTIFY_ERRORS: Record<string, (error: Error) => AppError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    appError('unsupported_media_type', 'Unsupported Content-Type; send application/json.'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => appError('payload_too_large', 'The request body is too large.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    appError('invalid_request', 'Content-Length does not match the body.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => appError('invalid_request', 'The JSON body is empty.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => appError('invalid_request', 'The body is not valid JSON.'),
};

/** Any thrown value as an AppError; unknown failures become a 500 whose detail stays in the log. */
export function toAppError(error: unknown): { error: AppError; unexpected: boolean } {
  if (isAppError(error)) return { error, unexpected: false };
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && FASTIFY_ERRORS[code])
    return { error: FASTIFY_ERRORS[code](error as Error), unexpected: false };
  const status = (error as { statusCode?: unknown })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { error: appError('invalid_request', 'The request could not be processed.'), unexpected: false };
  }
  return { error: appError('internal_error', 'An internal error occurred.'), unexpected: true };
}

/** The documented body of an error in the route's form; 5xx messages never say more than the catalog. */
export function shapeError(
  error: AppError,
  form: ErrorForm,
  requestId: string,
  audience: ErrorAudience = 'merchant',
): { status: number; body: unknown } {
  const body = error.toBody();
  if (error.code === 'internal_error') body.message = 'An internal error occurred.';
  const status = httpStatus(error.code, audience);
  return {
    status,
    body:
      form === 'simple' ? toSimpleError(body, requestId, status) : toEnvelopeError(body, requestId, status),
  };
}
