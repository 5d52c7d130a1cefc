import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../zod-errors.js';
import { CreatePayoutBody, CreateRefundBody, PayoutListQuery } from './transfer.js';

describe('CreateRefundBody', () => {
  it('takes no amount (all that remains) or a positive integer', () => {
    expect(CreateRefundBody.parse({})).toEqual({});
    expect(CreateRefundBody.parse({ amount: 1, reason: 'damaged' })).toEqual({
      amount: 1,
      reason: 'damaged',
    });
  });

  it.each([[{ amount: 0 }], [{ amount: 10.5 }], [{ amount: '100' }], [{ reason: '' }], [{ extra: true }]])(
    'refuses %j with a field error',
    (body) => {
      const result = CreateRefundBody.safeParse(body);
      expect(result.success).toBe(false);
      if (!result.success) expect(fieldErrors(result.error).length).toBeGreaterThan(0);
    },
  );
});

describe('CreatePayoutBody', () => {
  const valid = { amount: 500, recipient: { phone: '+237690000001' }, reference: 'po-1' };

  it('defaults the currency to XAF', () => {
    expect(CreatePayoutBody.parse(valid)).toMatchObject({ currency: 'XAF' });
  });

  it('names every invalid field', () => {
    const result = CreatePayoutBody.safeParse({ amount: -1, currency: 'EUR', recipient: { phone: '6' } });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(
        fieldErrors(result.error)
          .map((f) => f.field)
          .sort(),
      ).toEqual(['amount', 'currency', 'recipient.phone', 'reference']);
    }
  });
});

describe('PayoutListQuery', () => {
  it('pages like the payments list', () => {
    expect(PayoutListQuery.parse({})).toEqual({ limit: 20, page: 1 });
    expect(PayoutListQuery.safeParse({ limit: '101' }).success).toBe(false);
    expect(PayoutListQuery.safeParse({ starting_after: 'a', ending_before: 'b' }).success).toBe(false);
  });

  it('takes the last page the capped total counts, and no page past it unless a cursor chooses', () => {
    expect(PayoutListQuery.parse({ page: '500' })).toMatchObject({ page: 500 });
    const result = PayoutListQuery.safeParse({ page: '101', limit: '100' });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({
        path: ['page'],
        message:
          'page must start within the first 10000 payouts (at most page 100 with limit 100); read further with starting_after',
      }),
    ]);
    expect(PayoutListQuery.safeParse({ page: '9999', starting_after: 'po_1' }).success).toBe(true);
  });
});
