import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openEmbeddedStore, type Doc, type Filter, type FindOptions, type Store } from '@mmp/platform';
import { createCustomerStore } from '../src/store/customers.js';

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

/**
 * The service's collections on a real embedded store in a folder of their own, with their
 * indexes, counting what their finds read; `close` removes the folder.
 */
export async function openCustomerTestStore(label: string) {
  const dir = await mkdtemp(path.join(tmpdir(), `customers-${label}-`));
  const store = await openEmbeddedStore({ dir });
  const reads = countingReads(store);
  const customers = createCustomerStore(reads.store);
  await customers.ensureIndexes();
  return {
    store,
    reads,
    customers,
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** What `openCustomerTestStore` opens. */
export type CustomerTestStore = Awaited<ReturnType<typeof openCustomerTestStore>>;
