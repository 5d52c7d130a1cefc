import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type Store } from '@mmp/platform';
import { OPEN_STATUSES } from '../src/domain/lifecycle.js';
import { ensureIndexes, openPaymentsDb, type PaymentsDb } from '../src/store/db.js';
import {
  backfillOpenUntil,
  expiredOpenPaymentsFilter,
  findExpiredOpenPayments,
} from '../src/store/payments.js';

/**
 * The expiry loop runs every few seconds for the life of the service, so its query must cost
 * the open payments, not the history. On the embedded store that depends on the filter's
 * shape meeting an index; this test holds a history of settled payments with
 * past deadlines and a handful of due ones, and counts the documents each form of the
 * question reads.
 */

const SETTLED = 2_000;
const DUE = 5;
const NOW = new Date('2026-01-01T12:00:00.000Z');

let dir: string;
let store: Store;
let db: PaymentsDb;

function storedPayment(i: number, status: string, expiresAt: string) {
  const open = (OPEN_STATUSES as readonly string[]).includes(status);
  return {
    _id: `p${i}`,
    id: `p${i}`,
    token: `pay_${i}`,
    projectId: 'project',
    livemode: false,
    status,
    amount: 1000,
    currency: 'XAF',
    expiresAt,
    ...(open ? { openUntil: expiresAt } : {}),
    createdAt: '2025-06-01T00:00:00.000Z',
    timeline: [],
    version: 0,
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'payments-expiry-index-'));
  // Written as an NeDB datafile (one JSON document per line), which the store imports on open: fast to set up.
  const lines: string[] = [];
  for (let i = 0; i < SETTLED; i += 1) {
    const status = ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'][i % 4] as string;
    lines.push(JSON.stringify(storedPayment(i, status, '2025-06-01T00:15:00.000Z')));
  }
  for (let i = 0; i < DUE; i += 1) {
    const status = OPEN_STATUSES[i % OPEN_STATUSES.length] as string;
    lines.push(JSON.stringify(storedPayment(SETTLED + i, status, `2026-01-01T11:5${i}:00.000Z`)));
  }
  // An open payment whose deadline is still ahead is not due.
  lines.push(JSON.stringify(storedPayment(SETTLED + DUE, 'PENDING', '2026-01-01T12:10:00.000Z')));
  // Stored before `openUntil` existed: the start-up backfill must give it one.
  const { openUntil: _, ...legacy } = storedPayment(
    SETTLED + DUE + 1,
    'PROCESSING',
    '2026-01-01T11:59:30.000Z',
  );
  lines.push(JSON.stringify(legacy));
  await writeFile(path.join(dir, 'payments.db'), `${lines.join('\n')}\n`);
  store = await openEmbeddedStore({ dir });
  db = openPaymentsDb(store);
  await ensureIndexes(db);
}, 60_000);

afterAll(async () => {
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the expiry query on the embedded store', () => {
  it('finds the due open payments, oldest deadline first, once older ones are backfilled', async () => {
    const due = Array.from({ length: DUE }, (_, i) => `p${SETTLED + i}`);
    expect((await findExpiredOpenPayments(db, NOW, 100)).map((p) => p.id)).toEqual(due);
    expect(await backfillOpenUntil(db)).toBe(1);
    expect(await backfillOpenUntil(db)).toBe(0);
    expect((await findExpiredOpenPayments(db, NOW, 100)).map((p) => p.id)).toEqual([
      ...due,
      `p${SETTLED + DUE + 1}`,
    ]);
    expect((await findExpiredOpenPayments(db, NOW, 2)).map((p) => p.id)).toEqual([
      `p${SETTLED}`,
      `p${SETTLED + 1}`,
    ]);
  });

  it('reads the due open payments, not the settled history', async () => {
    expect(await db.payments.docsExamined(expiredOpenPaymentsFilter(NOW))).toBe(DUE + 1);
    // The question as it was asked before, through the state: NeDB (the embedded engine until
    // SQLite) read every payment for it; SQLite serves it from the (status, expiresAt) index.
    const byStatus = { expiresAt: { $lte: NOW.toISOString() }, status: { $in: [...OPEN_STATUSES] } };
    expect(await db.payments.docsExamined(byStatus)).toBe(DUE + 1);
  });
});
