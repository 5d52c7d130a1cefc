import type { Notice } from '@mmp/protocol';
import { boundedCache } from './bounded-cache.js';
import type { Notices } from './notices.js';

/**
 * What a service read from its store and believes for a while without reading it again
 * (a credential, a provider's signing secret). Whoever changes such a record calls
 * `changed`: the record is forgotten here at once and, when the cache is shared, on every
 * other replica by a notice. `ttlMs` bounds how long a replica that missed the notice
 * believes the old record; `ttlMs` 0 reads every time.
 */
export type ReadCache<V> = {
  /** The kept value of `key`, or what `load` reads (kept unless null, or changed meanwhile). */
  read(key: string, load: () => Promise<V | null>): Promise<V | null>;
  /** `key`'s record was written (`'*'`: any record, or one that cannot be named). */
  changed(key: string): void;
};

/** The notice that keeps one cache's replicas in step: told on each change, heard by all. */
export type SharedBy = { notices: Notices; notice: Notice };

export function createReadCache<V extends object>(options: {
  ttlMs: number;
  max: number;
  shared?: SharedBy;
}): ReadCache<V> {
  const values = options.ttlMs > 0 ? boundedCache<string, V>(options) : null;
  // A read that began before a change must not keep what it read after the change dropped
  // it: each change moves the generation, and a read keeps its value only within its own.
  let generation = 0;
  const forget = (key: string) => {
    generation += 1;
    if (key === '*') values?.clear();
    else values?.delete(key);
  };
  const { shared } = options;
  // The teller hears its own notice too, but later: it has forgotten at once, in `changed`.
  shared?.notices.hear(shared.notice, (key) => forget(key || '*'), { missed: () => forget('*') });
  return {
    async read(key, load) {
      const kept = values?.get(key);
      if (kept) return kept;
      const readIn = generation;
      const value = await load();
      if (value !== null && readIn === generation) values?.set(key, value);
      return value;
    },
    changed(key) {
      forget(key);
      shared?.notices.tell(shared.notice, key);
    },
  };
}
