import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type Store } from '@mmp/platform';
import {
  dueRecoveriesFilter,
  findDueRecoveries,
  openCollections,
  type Collections,
} from '../src/store/collections.js';

/**
 * The recovery loop runs for the life of the service, so its query must cost the pay
 * attempts still open, not the sessions' history. On the embedded store that depends on the
 * filter meeting an index NeDB can use for a range: this test holds a history and a handful
 * of due attempts, and counts the documents each form of the question reads.
 */
const HISTORY = 2_000;
const DUE = 5;
const NOW = new Date('2026-01-01T12:00:00.000Z');

let dir: string;
let store: Store;
let db: Collections;

function storedSession(i: number, status: string, recoverAt?: string) {
  return {
    _id: `cs_${i}`,
    status,
    linkId: null,
    expiresAt: { $$date: Date.parse('2025-06-01T00:15:00.000Z') },
    updatedAt: { $$date: Date.parse('2025-06-01T00:00:00.000Z') },
    ...(recoverAt ? { recoverAt } : {}),
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lc-recovery-index-'));
  // Written as an NeDB datafile (one JSON document per line), which the store imports on open: fast to set up.
  const lines: string[] = [];
  for (let i = 0; i < HISTORY; i += 1) {
    lines.push(JSON.stringify(storedSession(i, ['success', 'failed', 'expired', 'cancelled'][i % 4]!)));
  }
  for (let i = 0; i < DUE; i += 1) {
    lines.push(JSON.stringify(storedSession(HISTORY + i, 'processing', `2026-01-01T11:5${i}:00.000Z`)));
  }
  // An attempt not yet old enough is not due.
  lines.push(JSON.stringify(storedSession(HISTORY + DUE, 'processing', '2026-01-01T12:01:00.000Z')));
  await writeFile(path.join(dir, 'checkout_sessions.db'), `${lines.join('\n')}\n`);
  store = await openEmbeddedStore({ dir });
  db = await openCollections(store);
}, 60_000);

afterAll(async () => {
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the recovery query on the embedded store', () => {
  it('finds the due attempts, oldest first, and no others', async () => {
    const due = Array.from({ length: DUE }, (_, i) => `cs_${HISTORY + i}`);
    expect((await findDueRecoveries(db, NOW, 100)).map((s) => s._id)).toEqual(due);
    expect((await findDueRecoveries(db, NOW, 2)).map((s) => s._id)).toEqual(due.slice(0, 2));
  });

  it('reads the due attempts, not the history', async () => {
    expect(await db.sessions.docsExamined(dueRecoveriesFilter(NOW))).toBe(DUE);
    // The same question through the state: no index serves it, so every session is read.
    const byState = {
      status: { $nin: ['success', 'failed', 'expired', 'cancelled'] },
      recoverAt: { $exists: true },
    };
    expect(await db.sessions.docsExamined(byState)).toBe(HISTORY + DUE + 1);
  });
});
