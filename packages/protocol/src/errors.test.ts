import { describe, expect, it } from 'vitest';
import {
  EnvelopeErrorBody,
  SimpleErrorBody,
  statusName,
  toEnvelopeError,
  toSimpleError,
} from './error-bodies.js';
import { AppError, ErrorCode, appError, errorCatalog, isAppError } from './errors.js';

const SPEC_CODES: Array<[string, number]> = [
  ['invalid_api_key', 401],
  ['expired_api_key', 401],
  ['insufficient_permissions', 403],
  ['insufficient_balance', 400],
  ['invalid_phone', 400],
  ['transaction_limit', 400],
  ['payment_expired', 400],
  ['payment_cancelled', 400],
  ['duplicate_transaction', 409],
  ['invalid_amount', 400],
  ['invalid_currency', 400],
  ['missing_required_field', 400],
  ['invalid_email', 400],
  ['provider_unavailable', 503],
  ['provider_timeout', 504],
  ['pin_error', 400],
  ['account_inactive', 400],
  ['service_suspended', 403],
  ['rate_limit_exceeded', 429],
  ['too_many_requests', 429],
  ['internal_error', 500],
  ['service_unavailable', 503],
];

/** Codes beyond the specification's, each with its fixed status. */
const OUR_CODES: Array<[string, number]> = [
  ['validation_error', 422],
  ['invalid_request', 400],
  ['resource_not_found', 404],
  ['route_not_found', 404],
  ['method_not_allowed', 405],
  ['payload_too_large', 413],
  ['unsupported_media_type', 415],
  ['idempotency_conflict', 409],
  ['invalid_state', 409],
  ['duplicate_event', 409],
  ['signature_invalid', 403],
  ['order_expired', 410],
  ['rail_has_open_orders', 409],
];

describe('error catalog', () => {
  it('has the 22 codes of the specification', () => {
    expect(SPEC_CODES).toHaveLength(22);
  });

  it.each([...SPEC_CODES, ...OUR_CODES])('answers %s with %i', (code, status) => {
    expect(errorCatalog[ErrorCode.parse(code)].status).toBe(status);
  });

  it('gives every code a type and a named status', () => {
    for (const code of ErrorCode.options) {
      expect(errorCatalog[code].type).toMatch(/_error$/);
      expect(statusName(errorCatalog[code].status)).not.toBe('');
    }
    expect(errorCatalog.insufficient_balance.type).toBe('payment_error');
    expect(errorCatalog.rate_limit_exceeded.type).toBe('rate_limit_error');
  });

  it('rejects unknown codes', () => {
    expect(ErrorCode.safeParse('nope').success).toBe(false);
  });
});

describe('AppError', () => {
  it('carries code, status, type, fields and a private cause', () => {
    const cause = new Error('db exploded');
    const err = appError(
      'validation_error',
      'Invalid field: amount.',
      [{ field: 'amount', message: 'bad' }],
      { cause },
    );
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      code: 'validation_error',
      status: 422,
      type: 'invalid_request_error',
      message: 'Invalid field: amount.',
    });
    expect(err.cause).toBe(cause);
    expect(err.toBody()).toEqual({
      code: 'validation_error',
      message: 'Invalid field: amount.',
      fields: [{ field: 'amount', message: 'bad' }],
    });
    expect(JSON.stringify(err.toBody())).not.toContain('db exploded');
  });

  it('omits empty fields', () => {
    expect(appError('invalid_api_key', 'x', []).fields).toBeUndefined();
    expect(appError('invalid_api_key', 'x').toBody()).toEqual({ code: 'invalid_api_key', message: 'x' });
  });

  it('isAppError recognises app errors only', () => {
    expect(isAppError(appError('internal_error', 'x'))).toBe(true);
    expect(isAppError(new Error('x'))).toBe(false);
    expect(isAppError({ code: 'internal_error', status: 500 })).toBe(false);
    const lookalike = Object.assign(new Error('x'), { name: 'AppError', code: 'invalid_state', status: 409 });
    expect(isAppError(lookalike)).toBe(true);
  });
});

describe('public error bodies', () => {
  it('simple form', () => {
    const body = toSimpleError(
      appError('invalid_amount', 'amount must be an integer between 100 and 5000000'),
      'req_1',
    );
    expect(body).toEqual({
      statusCode: 400,
      message: 'amount must be an integer between 100 and 5000000',
      error: 'Bad Request',
      code: 'invalid_amount',
      requestId: 'req_1',
    });
    expect(SimpleErrorBody.parse(body)).toEqual(body);
    for (const broken of [
      { ...body, extra: 1 },
      { ...body, code: 'no_such_code' },
      { ...body, statusCode: '400' },
      { statusCode: 400, message: 'm', error: 'Bad Request' },
      { ...body, errors: [{ field: 'amount' }] },
    ]) {
      expect(SimpleErrorBody.safeParse(broken).success, JSON.stringify(broken)).toBe(false);
    }
  });

  it('simple form with field errors on 422', () => {
    const body = toSimpleError(
      { code: 'validation_error', message: 'm', fields: [{ field: 'a', message: 'b' }] },
      'req_2',
    );
    expect(body.error).toBe('Unprocessable Entity');
    expect(body.errors).toEqual([{ field: 'a', message: 'b' }]);
  });

  it('envelope form', () => {
    const body = toEnvelopeError(
      appError('insufficient_permissions', 'Missing scope customers:read.'),
      'req_3',
    );
    expect(body).toEqual({
      error: {
        code: 'insufficient_permissions',
        message: 'Missing scope customers:read.',
        type: 'permission_error',
        http_status: 403,
        request_id: 'req_3',
      },
    });
    expect(EnvelopeErrorBody.parse(body)).toEqual(body);
    expect(EnvelopeErrorBody.safeParse({ error: { ...body.error, extra: 1 } }).success).toBe(false);
  });

  it('names statuses', () => {
    expect(statusName(404)).toBe('Not Found');
    expect(statusName(429)).toBe('Too Many Requests');
    expect(statusName(504)).toBe('Gateway Timeout');
  });
});
