import { LRUCache } from 'lru-cache';

/**
 * What a service read from its store and believes for a while without reading it again
 * (a credential, a provider's signing secret). Whoever changes such a record forgets it
 * here at once and tells the other replicas to (ServiceKit.notices); `ttlMs` bounds how
 * long a replica that missed the notice believes the old one. `ttlMs` 0 reads every time.
 */
export type ReadCache<V> = {
  /** The kept value of `key`, or what `load` reads (kept unless null, or forgotten meanwhile). */
  read(key: string, load: () => Promise<V | null>): Promise<V | null>;
  /** Drops `key`'s value, or every value with `'*'`. */
  forget(key: string): void;
};

export function createReadCache<V extends object>(options: { ttlMs: number; max: number }): ReadCache<V> {
  const values = options.ttlMs > 0 ? new LRUCache<string, V>({ max: options.max, ttl: options.ttlMs }) : null;
  // A read that began before a change must not keep what it read after the change dropped
  // it: each change moves the generation, and a read keeps its value only within its own.
  let generation = 0;
  return {
    async read(key, load) {
      const kept = values?.get(key);
      if (kept) return kept;
      const readIn = generation;
      const value = await load();
      if (value !== null && readIn === generation) values?.set(key, value);
      return value;
    },
    forget(key) {
      generation += 1;
      if (key === '*') values?.clear();
      else values?.delete(key);
    },
  };
}
