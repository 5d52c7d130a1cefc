import { LRUCache } from 'lru-cache';

/**
 * An LRU cache of at most `max` entries, each forgotten `ttlMs` after it was set. Bounded by
 * a size of one per entry rather than by lru-cache's `max`, which allocates its bookkeeping
 * for `max` entries up front (seven arrays with a ttl: 0.37 MB for 10,000 credentials,
 * before any was kept); this way it grows with what is kept, and evicts the least recently
 * used just the same once full.
 */
export function boundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(options: {
  max: number;
  ttlMs: number;
}): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: options.max, sizeCalculation: () => 1, ttl: options.ttlMs });
}
