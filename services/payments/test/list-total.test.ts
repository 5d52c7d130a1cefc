import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type Store } from '@mmp/platform';
import type { Payment } from '../src/domain/payment.js';
import { ensureIndexes, openPaymentsDb, type PaymentsDb } from '../src/store/db.js';
import { listPayments, type PaymentListFilter } from '../src/store/payments.js';

/**
 * A list page counts its matches no further than a cap, so its cost stays flat as a
 * merchant's history grows; past the cap the page says its total is capped.
 */

const CAP = 10;
const scope = { projectId: 'project', livemode: false };
let dir: string;
let store: Store;
let db: PaymentsDb;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'payments-list-total-'));
  store = await openEmbeddedStore({ dir });
  db = openPaymentsDb(store);
  await ensureIndexes(db);
  for (let i = 0; i < CAP + 5; i += 1) {
    await db.payments.insertOne({
      _id: `p${i}`,
      id: `p${i}`,
      token: `pay_${i}`,
      ...scope,
      status: i % 2 ? 'COMPLETED' : 'FAILED',
      amount: 1000,
      currency: 'XAF',
      createdAt: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`,
      timeline: [],
      version: 0,
    } as unknown as Payment);
  }
});

afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const firstPage = (extra: Partial<PaymentListFilter> = {}): PaymentListFilter => ({
  limit: 3,
  page: 1,
  ...extra,
});

describe('the total of a payments list', () => {
  it('is exact up to the cap', async () => {
    const page = await listPayments(db, scope, firstPage({ status: 'COMPLETED' }), {}, CAP);
    expect(page).toMatchObject({ total: 7, totalCapped: false, hasMore: true });
  });

  it('stops at the cap and says so when more match', async () => {
    const page = await listPayments(db, scope, firstPage(), {}, CAP);
    expect(page).toMatchObject({ total: CAP, totalCapped: true, hasMore: true });
    expect(page.items.map((payment) => payment.id)).toEqual(['p14', 'p13', 'p12']);
  });

  it('is not capped when exactly the cap matches', async () => {
    const page = await listPayments(db, scope, firstPage(), {}, CAP + 5);
    expect(page).toMatchObject({ total: CAP + 5, totalCapped: false });
  });
});
