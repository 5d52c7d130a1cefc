import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../zod-errors.js';
import { PaymentListQuery, PaymentRetrieveQuery, UserPaymentsQuery } from './payment-query.js';

describe('PaymentListQuery', () => {
  it('applies defaults', () => {
    expect(PaymentListQuery.parse({})).toEqual({ limit: 20, page: 1, expand: [] });
  });

  it('coerces query strings and accepts every filter', () => {
    const q = PaymentListQuery.parse({
      limit: '100',
      page: '3',
      status: 'COMPLETED',
      paymentMethod: 'UNKNOWN',
      minAmount: '0',
      maxAmount: '10000',
      startDate: '2025-01-01',
      endDate: '2025-01-31T23:59:59Z',
      currency: 'XOF',
      search: ' awa ',
      'expand[]': ['customer', 'events'],
    });
    expect(q).toMatchObject({
      limit: 100,
      page: 3,
      minAmount: 0,
      maxAmount: 10000,
      search: 'awa',
      expand: ['customer', 'events'],
    });
  });

  it('takes amount bounds as any finite number of at least 0, as the specification types them', () => {
    expect(PaymentListQuery.parse({ minAmount: '.5', maxAmount: '99.5' })).toMatchObject({
      minAmount: 0.5,
      maxAmount: 99.5,
    });
    expect(PaymentListQuery.parse({ minAmount: 0.25 })).toMatchObject({ minAmount: 0.25 });
    expect(PaymentListQuery.parse({ maxAmount: '5000000.00' })).toMatchObject({ maxAmount: 5_000_000 });
    for (const bad of ['-0.5', '1e3', 'Infinity', '', '0x10', '1.', ' 1', 'NaN']) {
      const result = PaymentListQuery.safeParse({ minAmount: bad });
      expect(result.success, bad).toBe(false);
      expect(fieldErrors(result.error!)).toEqual([
        { field: 'minAmount', message: 'minAmount must be a number of at least 0' },
      ]);
    }
    expect(PaymentListQuery.safeParse({ maxAmount: Number.POSITIVE_INFINITY }).success).toBe(false);
  });

  it('accepts expand as a string, a comma list, an array, under either name', () => {
    expect(PaymentListQuery.parse({ expand: 'customer' }).expand).toEqual(['customer']);
    expect(PaymentListQuery.parse({ expand: 'customer,refunds' }).expand).toEqual(['customer', 'refunds']);
    expect(PaymentListQuery.parse({ 'expand[]': 'project', expand: ['project', 'events'] }).expand).toEqual([
      'project',
      'events',
    ]);
  });

  it('accepts cursors', () => {
    expect(PaymentListQuery.parse({ starting_after: 'abc' })).toMatchObject({ starting_after: 'abc' });
    expect(PaymentListQuery.parse({ ending_before: 'abc' })).toMatchObject({ ending_before: 'abc' });
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: '' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ page: '0' }, 'page'],
    [{ status: 'DONE' }, 'status'],
    [{ paymentMethod: 'CASH' }, 'paymentMethod'],
    [{ minAmount: '-1' }, 'minAmount'],
    [{ maxAmount: 'x' }, 'maxAmount'],
    [{ minAmount: '500', maxAmount: '100' }, 'maxAmount'],
    [{ startDate: 'yesterday' }, 'startDate'],
    [{ startDate: '2025-02-01', endDate: '2025-01-01' }, 'endDate'],
    [{ currency: 'EUR' }, 'currency'],
    [{ expand: 'customer,wallet' }, 'expand.1'],
    [{ starting_after: 'a', ending_before: 'b' }, 'ending_before'],
    [{ sort: 'asc' }, 'sort'],
  ])('rejects %j naming %s', (query, field) => {
    const result = PaymentListQuery.safeParse(query);
    expect(result.success).toBe(false);
    expect(fieldErrors(result.error!).map((f) => f.field)).toContain(field);
  });

  it('takes the last page the capped total counts, and no page past it', () => {
    expect(PaymentListQuery.parse({ page: '500' })).toMatchObject({ page: 500, limit: 20 });
    expect(PaymentListQuery.parse({ page: '100', limit: '100' })).toMatchObject({ page: 100 });
    const result = PaymentListQuery.safeParse({ page: '501' });
    expect(fieldErrors(result.error!)).toEqual([
      {
        field: 'page',
        message:
          'page must start within the first 10000 payments (at most page 500 with limit 20); read further with starting_after',
      },
    ]);
    expect(PaymentListQuery.safeParse({ page: '101', limit: '100' }).success).toBe(false);
  });

  it('ignores a deep page beside a cursor, as it ignores the page', () => {
    expect(PaymentListQuery.parse({ page: '9999', starting_after: 'pay_1' })).toMatchObject({ page: 9999 });
  });

  it('names limits in messages', () => {
    const result = PaymentListQuery.safeParse({ limit: '500' });
    expect(fieldErrors(result.error!)).toEqual([
      { field: 'limit', message: 'limit must be an integer between 1 and 100' },
    ]);
  });
});

describe('PaymentRetrieveQuery and UserPaymentsQuery', () => {
  it('retrieve takes expand or expand[]', () => {
    expect(PaymentRetrieveQuery.parse({})).toEqual({ expand: [] });
    expect(PaymentRetrieveQuery.parse({ 'expand[]': ['customer'], expand: 'project' })).toEqual({
      expand: ['project', 'customer'],
    });
    expect(PaymentRetrieveQuery.safeParse({ expand: 'nope' }).success).toBe(false);
  });

  it('user list limit defaults to and caps at 100', () => {
    expect(UserPaymentsQuery.parse({})).toEqual({ limit: 100 });
    expect(UserPaymentsQuery.parse({ limit: '5' })).toEqual({ limit: 5 });
    expect(UserPaymentsQuery.safeParse({ limit: '101' }).success).toBe(false);
  });
});
