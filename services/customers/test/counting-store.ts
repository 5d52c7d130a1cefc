import type { Doc, Filter, FindOptions, Store } from '@mmp/platform';

/**
 * The store, counting the documents its finds return, so that a test can prove how much a
 * query reads without timing it.
 */
export function countingReads(inner: Store): {
  store: Store;
  /** Documents the finds returned since the last reset. */
  read: () => number;
  /** The most documents one find returned since the last reset. */
  largest: () => number;
  reset: () => void;
} {
  let read = 0;
  let largest = 0;
  const store: Store = {
    kind: inner.kind,
    ping: () => inner.ping(),
    close: () => inner.close(),
    collection<T extends Doc>(name: string) {
      const collection = inner.collection<T>(name);
      return {
        ...collection,
        async find(filter: Filter, options?: FindOptions) {
          const found = await collection.find(filter, options);
          read += found.length;
          largest = Math.max(largest, found.length);
          return found;
        },
      };
    },
  };
  return {
    store,
    read: () => read,
    largest: () => largest,
    reset: () => {
      read = 0;
      largest = 0;
    },
  };
}
