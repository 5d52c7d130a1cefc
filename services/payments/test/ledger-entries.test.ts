import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createLogger, createOutbox, openEmbeddedStore, type Store } from '@mmp/platform';
import { accountId, entryKey, type AccountScope, type KeyedEntry } from '../src/domain/ledger.js';
import { ensureIndexes, openPaymentsDb, type PaymentsDb } from '../src/store/db.js';
import { applyEntry, findAccount, moveEmbeddedEntries } from '../src/store/transfers.js';

/**
 * The ledger straight on the real embedded store: entries are applied once however often
 * and however concurrently they come, including after a step that died between the account
 * and the entry's own document, and the account stays the same size whatever it holds.
 */
let dir: string;
let store: Store;
let db: PaymentsDb;
let writer: { db: PaymentsDb; outbox: ReturnType<typeof createOutbox> };

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mmp-ledger-'));
  store = await openEmbeddedStore({ dir });
  db = openPaymentsDb(store);
  await ensureIndexes(db);
  // No step here writes an event; the outbox is the one the service writes its accounts through.
  const outbox = createOutbox({
    publish: async () => undefined,
    log: createLogger({ service: 'payments', level: 'silent' }),
    collections: [db.accounts],
  });
  writer = { db, outbox };
});

afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const scopeOf = (): AccountScope => ({ projectId: `prj_${randomUUID()}`, livemode: false, currency: 'XAF' });

function credit(paymentId: string, amount = 1000): KeyedEntry {
  return {
    kind: 'payment',
    sourceId: paymentId,
    paymentId,
    amount,
    at: new Date().toISOString(),
    key: entryKey('payment', paymentId),
  };
}

const apply = (scope: AccountScope, entry: KeyedEntry) =>
  applyEntry(writer, scope, entry, () => ({ inc: { available: entry.amount } }), []);

describe('ledger entries', () => {
  it('keeps the account the same size however many payments it holds', async () => {
    const scope = scopeOf();
    await apply(scope, credit(randomUUID()));
    const small = JSON.stringify(await findAccount(db, scope)).length;
    for (let i = 0; i < 300; i += 1) await apply(scope, credit(randomUUID()));
    const account = await findAccount(db, scope);
    expect(account?.available).toBe(301_000);
    expect(JSON.stringify(account).length).toBeLessThan(small + 100);
    expect(await db.ledgerEntries.count({ accountId: accountId(scope) })).toBe(301);
  });

  it('applies one entry once, from ten writers at the same time or a redelivery later', async () => {
    const scope = scopeOf();
    const entry = credit(randomUUID(), 5000);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => apply(scope, entry)));
    expect(outcomes.filter((o) => o.outcome === 'applied')).toHaveLength(1);
    expect((await apply(scope, entry)).outcome).toBe('already');
    expect((await findAccount(db, scope))?.available).toBe(5000);
  });

  it('knows an entry applied by a step that died before recording it, and records it', async () => {
    const scope = scopeOf();
    const entry = credit(randomUUID(), 7000);
    // The step's compare-and-set went through; the process died before the entry's document.
    const insertOne = db.ledgerEntries.insertOne.bind(db.ledgerEntries);
    db.ledgerEntries.insertOne = () => Promise.reject(new Error('killed'));
    await expect(apply(scope, entry)).rejects.toThrow('killed');
    db.ledgerEntries.insertOne = insertOne;
    expect(await db.ledgerEntries.count({ accountId: accountId(scope) })).toBe(0);

    expect((await apply(scope, entry)).outcome).toBe('already');
    const other = credit(randomUUID(), 1);
    expect((await apply(scope, other)).outcome).toBe('applied');
    expect((await findAccount(db, scope))?.available).toBe(7001);
    expect(await db.ledgerEntries.count({ accountId: accountId(scope) })).toBe(2);
  });

  it('refuses an entry its decision refuses, and leaves the account as it was', async () => {
    const scope = scopeOf();
    await apply(scope, credit(randomUUID(), 100));
    const debit = { ...credit(randomUUID(), -500), kind: 'payout' as const, key: 'payout_po_1' };
    const outcome = await applyEntry(
      writer,
      scope,
      debit,
      (account) => (account.available >= 500 ? { inc: { available: -500 } } : { refused: 'insufficient' }),
      [],
    );
    expect(outcome).toEqual({ outcome: 'refused', refused: 'insufficient' });
    expect((await findAccount(db, scope))?.available).toBe(100);
  });

  it('moves the entries an account of an earlier version kept inside it, figures unchanged', async () => {
    const scope = scopeOf();
    const id = accountId(scope);
    const legacy = {
      [entryKey('payment', 'p1')]: credit('p1', 300),
      [entryKey('payment', 'p2')]: credit('p2', 200),
    };
    await db.accounts.insertOne({
      ...scope,
      _id: id,
      available: 500,
      pending: 0,
      refunded: {},
      entries: legacy,
      version: 2,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    } as never);
    expect(await moveEmbeddedEntries(db)).toBeGreaterThanOrEqual(1);
    const account = await findAccount(db, scope);
    expect(account).not.toHaveProperty('entries');
    expect(account?.available).toBe(500);
    expect((await apply(scope, credit('p1', 300))).outcome).toBe('already');
    expect(await moveEmbeddedEntries(db)).toBe(0);
  });
});
