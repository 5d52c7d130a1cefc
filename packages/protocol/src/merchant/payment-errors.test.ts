import { describe, expect, it } from 'vitest';
import { CreatePaymentBody } from './payment.js';
import { classifyCreatePaymentError, parseCreatePaymentBody } from './payment-errors.js';

function classify(body: unknown, withInput = true) {
  const result = CreatePaymentBody.safeParse(body);
  if (result.success) throw new Error('expected a failure');
  return withInput
    ? classifyCreatePaymentError(result.error, body)
    : classifyCreatePaymentError(result.error);
}

describe('classifyCreatePaymentError', () => {
  it('missing amount is missing_required_field (400)', () => {
    for (const withInput of [true, false]) {
      const err = classify({ currency: 'XAF' }, withInput);
      expect(err).toMatchObject({
        code: 'missing_required_field',
        status: 400,
        message: 'amount is required',
      });
    }
  });

  it('amount out of range is invalid_amount naming the limits', () => {
    for (const amount of [99, 5_000_001, 150.5, '5000', null]) {
      const err = classify({ amount });
      expect(err).toMatchObject({
        code: 'invalid_amount',
        status: 400,
        message: 'amount must be an integer between 100 and 5000000',
      });
    }
  });

  it('unsupported currency is invalid_currency', () => {
    expect(classify({ amount: 500, currency: 'EUR' })).toMatchObject({
      code: 'invalid_currency',
      message: 'currency must be XAF or XOF',
    });
  });

  it('bad customer e-mail is invalid_email', () => {
    expect(classify({ amount: 500, customer: { email: 'x@' } })).toMatchObject({
      code: 'invalid_email',
      message: 'customer.email must be a valid e-mail address',
    });
  });

  it('other problems are validation_error (422) and fields list every issue', () => {
    const err = classify({ amount: 500, userId: 'x', returnUrl: 'nope' });
    expect(err).toMatchObject({ code: 'validation_error', status: 422 });
    expect(err.fields?.map((f) => f.field)).toEqual(['returnUrl', 'userId']);
  });

  it('first matching code wins, fields keep all issues', () => {
    const err = classify({ amount: 5, currency: 'EUR', extra: true });
    expect(err.code).toBe('invalid_amount');
    expect(err.fields?.map((f) => f.field)).toEqual(['amount', 'currency', 'extra']);
  });

  it('a body that is not an object is invalid_request', () => {
    expect(classify('amount=5').code).toBe('invalid_request');
    expect(classify(null).code).toBe('invalid_request');
  });
});

describe('parseCreatePaymentBody', () => {
  it('returns the value or the classified error', () => {
    expect(parseCreatePaymentBody({ amount: 100 })).toEqual({
      ok: true,
      value: { amount: 100, currency: 'XAF' },
    });
    const failed = parseCreatePaymentBody({});
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.error.code).toBe('missing_required_field');
  });
});
