import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type Store } from '@mmp/platform';
import { ensureIndexes, openLinksCheckoutDb, type LinksCheckoutDb } from '../src/store/db.js';
import { sweepOnce } from '../src/use-cases/sweep.js';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);

let dir: string;
let store: Store;
let db: LinksCheckoutDb;
const deps = {
  get db() {
    return db;
  },
  now: () => NOW,
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lc-sweep-'));
  store = await openEmbeddedStore({ dir });
  db = openLinksCheckoutDb(store);
  await ensureIndexes(db);
});

afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const session = (id: string, status: string, expiresAt: Date, attemptUntil?: string) =>
  db.sessions.insertOne({
    _id: id,
    status,
    expiresAt,
    updatedAt: minutesAgo(60),
    ...(attemptUntil ? { attemptUntil } : {}),
  } as never);

const statusOf = async (id: string) => (await db.sessions.findOne({ _id: id }))?.status;

describe('expiry sweep', () => {
  it('expires every idle session past its deadline on its first run, and nothing else', async () => {
    await session('cs_old', 'idle', minutesAgo(600));
    await session('cs_due', 'idle', minutesAgo(1));
    await session('cs_open', 'idle', new Date(NOW.getTime() + 60_000));
    await session('cs_paid', 'success', minutesAgo(30));
    // A pay attempt whose process died holds nothing; a payment under way decides its own end.
    await session('cs_lost', 'processing', minutesAgo(5), minutesAgo(14).toISOString());
    await session('cs_paying', 'processing', minutesAgo(5));
    const first = await sweepOnce(deps);
    expect(first.sessions).toBe(3);
    expect(await statusOf('cs_lost')).toBe('expired');
    expect(await statusOf('cs_paying')).toBe('processing');
    expect(await statusOf('cs_old')).toBe('expired');
    expect(await statusOf('cs_due')).toBe('expired');
    expect(await statusOf('cs_open')).toBe('idle');
    expect(await statusOf('cs_paid')).toBe('success');
  });

  it('then looks only at deadlines since the previous run, with a margin for clock skew', async () => {
    await session('cs_since', 'idle', minutesAgo(2));
    await session('cs_skewed', 'idle', minutesAgo(5.5));
    await session('cs_long_ago', 'idle', minutesAgo(300));
    const next = await sweepOnce(deps, minutesAgo(5));
    expect(next.at).toEqual(NOW);
    expect(await statusOf('cs_since')).toBe('expired');
    expect(await statusOf('cs_skewed')).toBe('expired');
    // Past the window: a deadline the previous run already passed (reads compute it anyway).
    expect(await statusOf('cs_long_ago')).toBe('idle');
  });
});
