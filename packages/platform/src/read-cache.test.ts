import { describe, expect, it } from 'vitest';
import { notices as NOTICES } from '@mmp/protocol';
import type { Notices } from './notices.js';
import { createReadCache } from './read-cache.js';

/** Notices between replicas in one process, with the reconnect that makes each hearer run `missed`. */
function noticeBoard() {
  const hearers: { handle: (detail: string) => void; missed?: () => void }[] = [];
  const told: string[] = [];
  const notices: Notices = {
    tell: (_notice, detail = '') => {
      told.push(detail);
      for (const hearer of hearers) hearer.handle(detail);
    },
    hear: (_notice, handle, { missed } = {}) => void hearers.push({ handle, missed }),
  };
  return { notices, told, reconnect: () => hearers.forEach((hearer) => hearer.missed?.()) };
}

describe('createReadCache', () => {
  it('reads once and answers from what it kept, until the record changes', async () => {
    const cache = createReadCache<{ v: number }>({ ttlMs: 60_000, max: 10 });
    let reads = 0;
    const load = async () => ({ v: ++reads });
    expect(await cache.read('a', load)).toEqual({ v: 1 });
    expect(await cache.read('a', load)).toEqual({ v: 1 });
    cache.changed('a');
    expect(await cache.read('a', load)).toEqual({ v: 2 });
    expect(await cache.read('b', load)).toEqual({ v: 3 });
    cache.changed('*');
    expect(await cache.read('a', load)).toEqual({ v: 4 });
    expect(await cache.read('b', load)).toEqual({ v: 5 });
  });

  it('keeps neither a missing value nor one whose read began before a change', async () => {
    const cache = createReadCache<{ v: number }>({ ttlMs: 60_000, max: 10 });
    expect(await cache.read('a', async () => null)).toBeNull();
    let release!: () => void;
    const slow = cache.read('a', () => new Promise((resolve) => (release = () => resolve({ v: 1 }))));
    cache.changed('a');
    release();
    expect(await slow).toEqual({ v: 1 });
    expect(await cache.read('a', async () => ({ v: 2 }))).toEqual({ v: 2 });
  });

  it('reads every time with a lifetime of 0', async () => {
    const cache = createReadCache<{ v: number }>({ ttlMs: 0, max: 10 });
    let reads = 0;
    await cache.read('a', async () => ({ v: ++reads }));
    await cache.read('a', async () => ({ v: ++reads }));
    expect(reads).toBe(2);
  });

  it('drops a changed record on every replica that shares it, and everything after a missed notice', async () => {
    const board = noticeBoard();
    const shared = { notices: board.notices, notice: NOTICES.providerChanged };
    const replica = () => createReadCache<{ v: number }>({ ttlMs: 60_000, max: 10, shared });
    const [here, there] = [replica(), replica()];
    let reads = 0;
    const load = async () => ({ v: ++reads });
    await there.read('a', load);
    await there.read('b', load);
    here.changed('a');
    expect(board.told).toEqual(['a']);
    expect(await there.read('a', load)).toEqual({ v: 3 });
    expect(await there.read('b', load)).toEqual({ v: 2 });
    board.reconnect();
    expect(await there.read('b', load)).toEqual({ v: 4 });
  });
});
