import { describe, expect, it } from 'vitest';
import type { Payment } from '../src/domain/payment.js';
import { listedAfter, listedBefore } from '../src/store/pages.js';
import { listPayments, type PaymentListFilter } from '../src/store/payments.js';
import { scope, storedPayment, usePaymentsStore } from './payments-store.js';

/**
 * A cursor page must cost the page, wherever the cursor is: a merchant reads a long history
 * with cursors, and the engine has to seek to the cursor rather than walk to it. Two payments
 * share each second, so the ties on `createdAt` are broken by id as the sort breaks them.
 */

const COUNT = 200;
const idOf = (i: number) => `p${String(i).padStart(3, '0')}`;
const stamp = (i: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2) * 1000).toISOString();
const db = usePaymentsStore(() => Array.from({ length: COUNT }, (_, i) => storedPayment(idOf(i), stamp(i))));

const query: PaymentListFilter = { limit: 4, page: 1 };
const ids = (payments: Payment[]) => payments.map((payment) => payment.id);
const payment = async (i: number) => (await db().payments.findOne({ _id: idOf(i) })) as Payment;

describe('a payments list read with cursors', () => {
  it('goes on after the cursor, newest first, across a tie on createdAt', async () => {
    const page = await listPayments(db(), scope, query, { after: await payment(11) });
    expect(ids(page.items)).toEqual([idOf(10), idOf(9), idOf(8), idOf(7)]);
    expect(page.hasMore).toBe(true);
  });

  it('ends before the cursor with the newer items, in list order', async () => {
    const page = await listPayments(db(), scope, query, { before: await payment(10) });
    expect(ids(page.items)).toEqual([idOf(14), idOf(13), idOf(12), idOf(11)]);
    expect(page.hasMore).toBe(true);
  });

  it('says when nothing is left past the cursor', async () => {
    const page = await listPayments(db(), scope, query, { after: await payment(2) });
    expect(ids(page.items)).toEqual([idOf(1), idOf(0)]);
    expect(page.hasMore).toBe(false);
  });

  it('seeks to the cursor instead of reading the history before it', async () => {
    // Near the oldest end, the items older than the cursor are a handful of 200.
    const older = await db().payments.docsExamined({ $and: [scope, listedAfter(await payment(6))] });
    expect(older).toBeLessThanOrEqual(8);
    const newer = await db().payments.docsExamined({ $and: [scope, listedBefore(await payment(COUNT - 7))] });
    expect(newer).toBeLessThanOrEqual(8);
  });
});
