import { z } from 'zod';
import { ErrorCode, ErrorType, FieldError, errorCatalog, type AppErrorBody } from './errors.js';

/** Reason phrases of the statuses the system answers with (RFC 9110 names). */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function statusName(status: number): string {
  return STATUS_NAMES[status] ?? (status >= 500 ? 'Internal Server Error' : 'Bad Request');
}

/** Payment, link and checkout routes: the specification's simple form plus code and requestId. */
export const SimpleErrorBody = z.strictObject({
  statusCode: z.number().int(),
  message: z.string(),
  error: z.string(),
  code: ErrorCode,
  requestId: z.string(),
  errors: z.array(FieldError).optional(),
});
export type SimpleErrorBody = z.infer<typeof SimpleErrorBody>;

/** Every other route: the specification's envelope form. */
export const EnvelopeErrorBody = z.strictObject({
  error: z.strictObject({
    code: ErrorCode,
    message: z.string(),
    type: ErrorType,
    http_status: z.number().int(),
    request_id: z.string(),
    errors: z.array(FieldError).optional(),
  }),
});
export type EnvelopeErrorBody = z.infer<typeof EnvelopeErrorBody>;

/** `status` overrides the catalog's where the audience decides it (validation_error: 400 or 422). */
export function toSimpleError(
  err: AppErrorBody,
  requestId: string,
  status = errorCatalog[err.code].status,
): SimpleErrorBody {
  const body: SimpleErrorBody = {
    statusCode: status,
    message: err.message,
    error: statusName(status),
    code: err.code,
    requestId,
  };
  if (err.fields && err.fields.length > 0) body.errors = err.fields;
  return body;
}

export function toEnvelopeError(
  err: AppErrorBody,
  requestId: string,
  status = errorCatalog[err.code].status,
): EnvelopeErrorBody {
  const { type } = errorCatalog[err.code];
  const error: EnvelopeErrorBody['error'] = {
    code: err.code,
    message: err.message,
    type,
    http_status: status,
    request_id: requestId,
  };
  if (err.fields && err.fields.length > 0) error.errors = err.fields;
  return { error };
}
