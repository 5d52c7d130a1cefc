import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type Store } from '@mmp/platform';
import type { Payment } from '../src/domain/payment.js';
import { ensureIndexes, openPaymentsDb, type PaymentsDb } from '../src/store/db.js';
import { listedAfter, listedBefore } from '../src/store/pages.js';
import { listPayments, type PaymentListFilter } from '../src/store/payments.js';

/**
 * A cursor page must cost the page, wherever the cursor is: a merchant reads a long history
 * with cursors, and the engine has to seek to the cursor rather than walk to it. Two payments
 * share each second, so the ties on `createdAt` are broken by id as the sort breaks them.
 */

const COUNT = 200;
const scope = { projectId: 'project', livemode: false };
let dir: string;
let store: Store;
let db: PaymentsDb;

const idOf = (i: number) => `p${String(i).padStart(3, '0')}`;
const stamp = (i: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2) * 1000).toISOString();

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'payments-list-pages-'));
  store = await openEmbeddedStore({ dir });
  db = openPaymentsDb(store);
  await ensureIndexes(db);
  for (let i = 0; i < COUNT; i += 1) {
    await db.payments.insertOne({
      _id: idOf(i),
      id: idOf(i),
      token: `pay_${i}`,
      ...scope,
      status: 'COMPLETED',
      amount: 1000,
      currency: 'XAF',
      createdAt: stamp(i),
      timeline: [],
      version: 0,
    } as unknown as Payment);
  }
});

afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const query: PaymentListFilter = { limit: 4, page: 1 };
const ids = (payments: Payment[]) => payments.map((payment) => payment.id);
const payment = async (i: number) => (await db.payments.findOne({ _id: idOf(i) })) as Payment;

describe('a payments list read with cursors', () => {
  it('goes on after the cursor, newest first, across a tie on createdAt', async () => {
    const page = await listPayments(db, scope, query, { after: await payment(11) });
    expect(ids(page.items)).toEqual([idOf(10), idOf(9), idOf(8), idOf(7)]);
    expect(page.hasMore).toBe(true);
  });

  it('ends before the cursor with the newer items, in list order', async () => {
    const page = await listPayments(db, scope, query, { before: await payment(10) });
    expect(ids(page.items)).toEqual([idOf(14), idOf(13), idOf(12), idOf(11)]);
    expect(page.hasMore).toBe(true);
  });

  it('says when nothing is left past the cursor', async () => {
    const page = await listPayments(db, scope, query, { after: await payment(2) });
    expect(ids(page.items)).toEqual([idOf(1), idOf(0)]);
    expect(page.hasMore).toBe(false);
  });

  it('seeks to the cursor instead of reading the history before it', async () => {
    // Near the oldest end, the items older than the cursor are a handful of 200.
    const older = await db.payments.docsExamined({ $and: [scope, listedAfter(await payment(6))] });
    expect(older).toBeLessThanOrEqual(8);
    const newer = await db.payments.docsExamined({ $and: [scope, listedBefore(await payment(COUNT - 7))] });
    expect(newer).toBeLessThanOrEqual(8);
  });
});
