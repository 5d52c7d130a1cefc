import { describe, expect, it } from 'vitest';
import { createReadCache } from './read-cache.js';

describe('createReadCache', () => {
  it('reads once and answers from what it kept, until the value is forgotten', async () => {
    const cache = createReadCache<{ v: number }>({ ttlMs: 60_000, max: 10 });
    let reads = 0;
    const load = async () => ({ v: ++reads });
    expect(await cache.read('a', load)).toEqual({ v: 1 });
    expect(await cache.read('a', load)).toEqual({ v: 1 });
    cache.forget('a');
    expect(await cache.read('a', load)).toEqual({ v: 2 });
    expect(await cache.read('b', load)).toEqual({ v: 3 });
    cache.forget('*');
    expect(await cache.read('a', load)).toEqual({ v: 4 });
    expect(await cache.read('b', load)).toEqual({ v: 5 });
  });

  it('keeps neither a missing value nor one whose read began before a change', async () => {
    const cache = createReadCache<{ v: number }>({ ttlMs: 60_000, max: 10 });
    expect(await cache.read('a', async () => null)).toBeNull();
    let release!: () => void;
    const slow = cache.read('a', () => new Promise((resolve) => (release = () => resolve({ v: 1 }))));
    cache.forget('a');
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
});
