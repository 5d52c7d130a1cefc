import { appError, isAppError, toEnvelopeError, toSimpleError, type AppError } from '@mmp/protocol';

export type ErrorForm = 'simple' | 'envelope';

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
): { status: number; body: unknown } {
  const body = error.toBody();
  if (error.code === 'internal_error') body.message = 'An internal error occurred.';
  return {
    status: error.status,
    body: form === 'simple' ? toSimpleError(body, requestId) : toEnvelopeError(body, requestId),
  };
}
