import { describe, expect, it } from 'vitest';
import { listPayments, type PaymentListFilter } from '../src/store/payments.js';
import { listPayouts } from '../src/store/transfers.js';
import { scope, storedPayment, storedPayout, usePaymentsStore } from './payments-store.js';

/**
 * A list page counts its matches no further than a cap, so its cost stays flat as a
 * merchant's history grows; past the cap the page says its total is capped. Payouts page
 * as payments do.
 */

const CAP = 10;
const second = (i: number) => `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`;
const db = usePaymentsStore(
  () =>
    Array.from({ length: CAP + 5 }, (_, i) =>
      storedPayment(`p${i}`, second(i), { status: i % 2 ? 'COMPLETED' : 'FAILED' }),
    ),
  () => Array.from({ length: CAP + 1 }, (_, i) => storedPayout(`po${i}`, second(i))),
);

const firstPage = (extra: Partial<PaymentListFilter> = {}): PaymentListFilter => ({
  limit: 3,
  page: 1,
  ...extra,
});

describe('the total of a payments list', () => {
  it('is exact up to the cap', async () => {
    const page = await listPayments(db(), scope, firstPage({ status: 'COMPLETED' }), {}, CAP);
    expect(page).toMatchObject({ total: 7, totalCapped: false, hasMore: true });
  });

  it('stops at the cap and says so when more match', async () => {
    const page = await listPayments(db(), scope, firstPage(), {}, CAP);
    expect(page).toMatchObject({ total: CAP, totalCapped: true, hasMore: true });
    expect(page.items.map((payment) => payment.id)).toEqual(['p14', 'p13', 'p12']);
  });

  it('is not capped when exactly the cap matches', async () => {
    const page = await listPayments(db(), scope, firstPage(), {}, CAP + 5);
    expect(page).toMatchObject({ total: CAP + 5, totalCapped: false });
  });
});

describe('the total of a payouts list', () => {
  it('stops at the cap and says so when more match, and is exact at the cap', async () => {
    const capped = await listPayouts(db(), scope, { limit: 2, page: 1 }, {}, CAP);
    expect(capped).toMatchObject({ total: CAP, totalCapped: true, hasMore: true });
    expect(capped.items.map((payout) => payout.id)).toEqual(['po10', 'po9']);
    const exact = await listPayouts(db(), scope, { limit: 2, page: 1 }, {}, CAP + 1);
    expect(exact).toMatchObject({ total: CAP + 1, totalCapped: false });
  });
});
