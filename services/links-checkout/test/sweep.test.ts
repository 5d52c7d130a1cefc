import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type Store } from '@mmp/platform';
import type { Deps } from '../src/handlers/deps.js';
import { sweepOnce } from '../src/handlers/sweep.js';
import { openCollections, type Collections } from '../src/store/collections.js';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);

let dir: string;
let store: Store;
let db: Collections;
let deps: Deps;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lc-sweep-'));
  store = await openEmbeddedStore({ dir });
  db = await openCollections(store);
  deps = { db, now: () => NOW } as unknown as Deps;
});

afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const session = (id: string, status: string, expiresAt: Date) =>
  db.sessions.insertOne({ _id: id, status, expiresAt, updatedAt: minutesAgo(60) } as never);

const statusOf = async (id: string) => (await db.sessions.findOne({ _id: id }))?.status;

describe('expiry sweep', () => {
  it('expires every idle session past its deadline on its first run, and nothing else', async () => {
    await session('cs_old', 'idle', minutesAgo(600));
    await session('cs_due', 'idle', minutesAgo(1));
    await session('cs_open', 'idle', new Date(NOW.getTime() + 60_000));
    await session('cs_paid', 'success', minutesAgo(30));
    const first = await sweepOnce(deps);
    expect(first.sessions).toBe(2);
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
