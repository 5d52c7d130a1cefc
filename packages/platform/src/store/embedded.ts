import { chmod, mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Doc, Store } from './port.js';
import { checkCollectionName } from './translate.js';
import { decodeValue } from './embedded/codec.js';
import {
  ARRAY_PATHS_TABLE,
  openCollection,
  type CollectionHandle,
  type SearchPlanLimits,
  type StoreEnv,
} from './embedded/collection.js';
import { containsText, matches } from './embedded/matcher.js';
import { importNedbDatafiles } from './embedded/nedb-import.js';

/**
 * The embedded store: one SQLite database per service (`<dir>/store.sqlite`, WAL mode),
 * one table per collection, documents as JSON with the port's indexes as expression
 * indexes. SQLite keeps the data on disk and a bounded page cache in memory, so a service
 * holds a million payments in a few tens of megabytes (see docs/decisions.md). It is the
 * development and single-machine default; MongoDB is the production database.
 */

export type EmbeddedStoreOptions = {
  dir: string;
  /** Where a text search changes plan; tests move the limits to read small data by every plan. */
  searchPlan?: Partial<SearchPlanLimits>;
};

/** A needle matching fewer documents is read from its matches; from `manyMatches` on, a limited read leaves the index out. */
const SEARCH_PLAN: SearchPlanLimits = { fewMatches: 10_000, manyMatches: 50_000 };

export const EMBEDDED_FILE = 'store.sqlite';

/** Removal of expired TTL documents between reads (reads never return them anyway). */
const TTL_SWEEP_INTERVAL_MS = 60_000;
/** SQLite's page cache, per service: enough for the hot index pages, not the data set. */
const CACHE_KIB = 16 * 1024;
const BUSY_TIMEOUT_MS = 5_000;

/** A parsed copy of each fallback condition `mmp_match` receives (the text is a bound parameter). */
function conditionCache() {
  const parsed = new Map<string, Doc>();
  return (text: string) => {
    let condition = parsed.get(text);
    if (!condition) {
      if (parsed.size > 1_000) parsed.clear();
      condition = decodeValue(JSON.parse(text)) as Doc;
      parsed.set(text, condition);
    }
    return condition;
  };
}

/**
 * Group commit: the writes of one turn of the event loop share a transaction, committed
 * right after it (setImmediate), and each write's promise resolves once its commit is done.
 * A commit writes every page it touched to the write-ahead log, a dozen pages for a
 * payment and its indexes, so committing each write alone costs ten times more under
 * concurrent load. Each write still runs whole and alone, synchronously: compare-and-set is
 * unchanged, and a failing write undoes only itself (SQLite undoes a failing statement; a
 * write of several statements runs in a savepoint).
 */
export function groupCommits(db: BetterSqlite3.Database) {
  type Batch = { resolve(): void; reject(error: unknown): void }[];
  let open: Batch | undefined;
  // One transaction function for every write: better-sqlite3 builds a wrapper (and its
  // variants) each time `transaction()` is called, which cost a write more than its savepoint.
  const inSavepoint = db.transaction(<R>(operation: () => R): R => operation());

  function flush(batch = open) {
    if (!batch || batch !== open) return;
    open = undefined;
    if (!db.inTransaction) return abandon(batch);
    try {
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      for (const write of batch) write.reject(error);
      return;
    }
    for (const write of batch) write.resolve();
  }

  /** SQLite rolled the group back by itself (disk full, I/O error): its writes are lost. */
  function abandon(batch: Batch) {
    const error = new Error('embedded store: the transaction was rolled back by SQLite before its commit');
    for (const write of batch) write.reject(error);
  }

  function begin(): Batch {
    if (open && !db.inTransaction) {
      abandon(open);
      open = undefined;
    }
    if (!open) {
      db.exec('BEGIN IMMEDIATE');
      const batch: Batch = [];
      open = batch;
      setImmediate(() => flush(batch));
    }
    return open;
  }

  function commitLater<R>(batch: Batch, result: R): Promise<R> {
    return new Promise<R>((resolve, reject) => batch.push({ resolve: () => resolve(result), reject }));
  }

  return {
    flush: () => flush(),
    /** A write of several statements: all or nothing. */
    write<R>(operation: () => R): Promise<R> {
      const batch = begin();
      return commitLater(batch, inSavepoint(operation) as R);
    },
    /** A write that changes at most one statement's rows: SQLite undoes that statement alone if it fails. */
    writeOne<R>(operation: () => R): Promise<R> {
      const batch = begin();
      return commitLater(batch, operation());
    },
  };
}

export async function openEmbeddedStore({ dir, searchPlan }: EmbeddedStoreOptions): Promise<Store> {
  // Payment data: readable by the service's own user only.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const file = path.join(dir, EMBEDDED_FILE);
  await (await open(file, 'a', 0o600)).close();
  await chmod(file, 0o600);

  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  db.pragma('journal_mode = WAL');
  // Durable across a crash of the process; the last commits can be lost only with the
  // machine's power, as with NeDB's appends (the engine before).
  db.pragma('synchronous = NORMAL');
  db.pragma(`cache_size = -${CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');

  let closed = false;
  const commits = groupCommits(db);
  const env: StoreEnv = {
    db,
    isClosed: () => closed,
    examined: { count: 0 },
    searchPlan: { ...SEARCH_PLAN, ...searchPlan },
    write: commits.write,
    writeOne: commits.writeOne,
  };
  const condition = conditionCache();
  // `column` is NULL for a document without side fields (codec.ts): then it has none of them.
  db.function('mmp_match', { deterministic: true }, (column, text) =>
    matches(column === null ? {} : decodeValue(JSON.parse(column as string)), condition(text as string))
      ? 1
      : 0,
  );
  db.function('mmp_contains', { deterministic: true }, (value, text) =>
    typeof value === 'string' && value.startsWith('s:') && containsText(value.slice(2), text as string)
      ? 1
      : 0,
  );
  db.function('mmp_examined', { deterministic: false, varargs: true }, () => {
    env.examined.count += 1;
    return 1;
  });
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${ARRAY_PATHS_TABLE} (collection TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (collection, path)) WITHOUT ROWID`,
  );
  try {
    importNedbDatafiles(db, dir);
  } catch (error) {
    db.close();
    throw error;
  }

  const collections = new Map<string, CollectionHandle<Doc>>();
  const sweeper = setInterval(() => {
    for (const collection of collections.values()) collection.sweep();
  }, TTL_SWEEP_INTERVAL_MS);
  sweeper.unref();

  return {
    kind: 'embedded',
    collection<T extends Doc>(name: string) {
      if (closed) throw new Error('store is closed');
      checkCollectionName(name);
      if (/^sqlite_/i.test(name)) throw new TypeError(`invalid collection name ${JSON.stringify(name)}`);
      let collection = collections.get(name);
      if (!collection) {
        collection = openCollection<Doc>(env, name);
        collections.set(name, collection);
      }
      return collection as unknown as CollectionHandle<T>;
    },
    async ping() {
      if (closed) return false;
      try {
        return db.prepare('SELECT 1').pluck().get() === 1;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      commits.flush();
      db.close();
    },
  };
}
