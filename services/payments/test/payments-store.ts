import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openEmbeddedStore, type Store } from '@mmp/platform';
import type { Payment } from '../src/domain/payment.js';
import type { Payout } from '../src/domain/transfer.js';
import { ensureIndexes, openPaymentsDb, type PaymentsDb } from '../src/store/db.js';

export const scope = { projectId: 'project', livemode: false };

/** A payment as the store keeps it, with what the list's queries read; `fields` add to it. */
export function storedPayment(id: string, createdAt: string, fields: Record<string, unknown> = {}): Payment {
  return {
    _id: id,
    id,
    token: `pay_${id}`,
    ...scope,
    status: 'COMPLETED',
    amount: 1000,
    currency: 'XAF',
    createdAt,
    timeline: [],
    version: 0,
    ...fields,
  } as unknown as Payment;
}

/** A payout as the store keeps it, with what the list's queries read. */
export function storedPayout(id: string, createdAt: string): Payout {
  return {
    _id: id,
    id,
    referenceKey: `ref-${id}`,
    ...scope,
    status: 'COMPLETED',
    currency: 'XAF',
    createdAt,
  } as unknown as Payout;
}

/**
 * The payments store module over a store of its own (a temporary folder, the service's
 * indexes), holding the payments `seed` gives and the payouts `seedPayouts` gives, for tests
 * of the store's queries.
 */
export function usePaymentsStore(seed: () => Payment[], seedPayouts: () => Payout[] = () => []) {
  let dir: string;
  let store: Store;
  let db: PaymentsDb | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'payments-store-'));
    store = await openEmbeddedStore({ dir });
    db = openPaymentsDb(store);
    await ensureIndexes(db);
    for (const payment of seed()) await db.payments.insertOne(payment);
    for (const payout of seedPayouts()) await db.payouts.insertOne(payout);
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (!db) throw new Error('the payments store opens before the tests');
    return db;
  };
}
