import { describe, expect, it } from 'vitest';
import { boundedCache } from './bounded-cache.js';

describe('boundedCache', () => {
  it('keeps at most max entries, forgetting the least recently used first', () => {
    const cache = boundedCache<string, number>({ max: 3, ttlMs: 60_000 });
    for (const key of ['a', 'b', 'c']) cache.set(key, key.charCodeAt(0));
    expect(cache.get('a')).toBe(97);
    cache.set('d', 100);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    expect(cache.size).toBe(3);
  });

  it('forgets an entry once its time to live has passed', async () => {
    const cache = boundedCache<string, number>({ max: 10, ttlMs: 20 });
    cache.set('a', 1);
    expect(cache.get('a')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(cache.get('a')).toBeUndefined();
  });
});
