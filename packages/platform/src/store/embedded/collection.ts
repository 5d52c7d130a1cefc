import { createHash, randomUUID } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type Update,
} from '../port.js';
import {
  equalityFields,
  indexFields,
  translateFilter,
  translateUpdate,
  type Dialect,
  type Plain,
} from '../translate.js';
import {
  arrayPaths,
  columnOf,
  decodeDocument,
  decodeStored,
  encodeDocument,
  encodeStored,
  SIDE_FIELDS,
  sqlValue,
  TAG,
  type StoredTexts,
} from './codec.js';
import { compileFilter, compileSort, fieldExpression, type Compiled, type TextPlan } from './sql.js';
import { applyUpdate, nest } from './update.js';

/**
 * One collection of the embedded store: a table `(_id, data, side)` whose `data` is the
 * tagged JSON of codec.ts in SQLite's binary JSONB form (its fields are read without parsing
 * text) and `side` the outbox's fields in the same form (codec.ts says why), with one SQLite
 * expression index per declared index. Every operation
 * is synchronous inside SQLite, so a findOneAndUpdate's read and write happen with nothing
 * in between: the guard in its filter is a compare-and-set.
 */

/** Validation only: the SQL compiler reads the port's language as it is. */
const asIs: Dialect = { condition: (condition) => condition, field: (field, value) => [{ [field]: value }] };

/** How long documents written wait to go into a text index together (see ensureTextIndex). */
const TEXT_INDEX_DELAY_MS = 100;
/** The triggers that queue documents for a text index, by the end of their names. */
const QUEUE_TRIGGERS = ['queue_insert', 'queue_update', 'queue_delete'] as const;

/** Meta table of the paths that have held an array, per collection (see sql.ts). */
export const ARRAY_PATHS_TABLE = '"$array_paths"';

export type Ttl = { expression: string; seconds: number };

export type CollectionHandle<T extends Doc> = Collection<T> & {
  /** Removes the documents past their TTL; 0 when the collection has none. */
  sweep(now?: Date): number;
};

/** A page bound as SQL text; anything but a finite number is a caller's bug, said as one. */
function sqlInteger(value: number): number {
  if (!Number.isFinite(value)) throw new TypeError(`limit and skip must be finite numbers, got ${value}`);
  return Math.trunc(value);
}

/** True when every path `update` writes is a side field (codec.ts). */
function changesSideOnly(update: Update): boolean {
  return Object.values(update).every((fields) =>
    Object.keys(fields as object).every((path) => columnOf(path) === 'side'),
  );
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function quote(identifier: string): string {
  return `"${identifier}"`;
}

type Database = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;

/**
 * Where a text search's plan changes (see `textPlan` in openCollection), in documents the
 * needle matches: below `fewMatches` a read starts from the matches; from `manyMatches` on, a
 * read that stops at a limit leaves the index out.
 */
export type SearchPlanLimits = { fewMatches: number; manyMatches: number };

/** What the store shares with its collections. */
export type StoreEnv = {
  db: Database;
  searchPlan: SearchPlanLimits;
  isClosed(): boolean;
  /** Counts the rows SQLite hands to `mmp_examined(rowid)`, for docsExamined. */
  examined: { count: number };
  /**
   * Runs a write at once, atomically (a savepoint), inside the store's current group
   * commit, and resolves once that commit is done: see openEmbeddedStore.
   */
  write<R>(operation: () => R): Promise<R>;
  /**
   * The same for a write whose only change is one statement (the meta row of a new array
   * path aside, which is right whether or not the write succeeds): no savepoint needed.
   */
  writeOne<R>(operation: () => R): Promise<R>;
};

export function createTable(db: Database, name: string): void {
  const table = quote(name);
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${table} (_id TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, side BLOB)`,
  );
  const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(name) as string[];
  if (!columns.includes('side')) moveSideFields(db, name);
}

/** Rows the side-column migration reads at a time: bounded memory on a store of millions. */
const MIGRATION_PAGE = 1_000;

/**
 * A table written before the side column: add it and move the outbox's fields of every
 * document into it, and drop the indexes built on where those fields were, so the
 * collection's ensureIndex builds them on the side column. One transaction, so a crash
 * midway leaves the table as it was and the next start migrates again; the rows are read
 * a page at a time by rowid (better-sqlite3 cannot write while an iterator is open).
 */
function moveSideFields(db: Database, name: string): void {
  const table = quote(name);
  db.transaction(() => {
    db.exec(`ALTER TABLE ${table} ADD COLUMN side BLOB`);
    const page = db.prepare(
      `SELECT rowid, json(data) AS data FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ${MIGRATION_PAGE}`,
    );
    const move = db.prepare(`UPDATE ${table} SET data = jsonb(?), side = jsonb(?) WHERE rowid = ?`);
    for (let after = 0; ;) {
      const rows = page.all(after) as { rowid: number; data: string }[];
      for (const row of rows) {
        const doc = decodeDocument<Doc>(row.data);
        if (!Object.keys(doc).some((key) => SIDE_FIELDS.has(key))) continue;
        const texts = encodeStored(doc);
        move.run(texts.data, texts.side, row.rowid);
      }
      if (rows.length < MIGRATION_PAGE) break;
      after = rows[rows.length - 1]!.rowid;
    }
    const indexes = db
      .prepare(
        `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`,
      )
      .all(name) as { name: string; sql: string }[];
    for (const index of indexes) {
      if ([...SIDE_FIELDS].some((field) => index.sql.includes(`data ->> '$."${field}"`)))
        db.exec(`DROP INDEX ${quote(index.name)}`);
    }
  })();
}

export function openCollection<T extends Doc>(env: StoreEnv, name: string): CollectionHandle<T> {
  const { db, isClosed } = env;
  const table = quote(name);
  createTable(db, name);
  const arrays = new Set(
    db.prepare(`SELECT path FROM ${ARRAY_PATHS_TABLE} WHERE collection = ?`).pluck().all(name) as string[],
  );
  const addArrayPath = db.prepare(
    `INSERT OR IGNORE INTO ${ARRAY_PATHS_TABLE} (collection, path) VALUES (?, ?)`,
  );
  let ttl: Ttl | undefined;
  const textIndexes = new Map<string, { table: string; column: string }>();
  /** Each text index's SQL that moves its queued documents into it (see ensureTextIndex). */
  const textQueues = new Map<string, { queued: string; index: string[] }>();
  let textIndexing: NodeJS.Timeout | undefined;
  const statements = new Map<string, Statement>();

  function statement(sql: string): Statement {
    let prepared = statements.get(sql);
    if (!prepared) {
      if (statements.size > 500) statements.clear();
      prepared = db.prepare(sql);
      statements.set(sql, prepared);
    }
    return prepared;
  }

  const context = {
    table,
    // A search reads its text index whole: the documents queued for it go in first.
    textIndex: (path: string) => {
      const index = textIndexes.get(path);
      if (index) indexQueuedTexts();
      return index;
    },
    crossesArray(path: string) {
      if (arrays.size === 0) return false;
      const segments = path.split('.');
      for (let i = 1; i <= segments.length; i += 1)
        if (arrays.has(segments.slice(0, i).join('.'))) return true;
      return false;
    },
  };

  /** How many documents the trigram index matches for `query`, counted no further than `limit`. */
  function matches(ftsTable: string, query: string, limit: number): number {
    return statement(`SELECT count(*) FROM (SELECT 1 FROM ${ftsTable} WHERE ${ftsTable} MATCH ? LIMIT ?)`)
      .pluck()
      .get(query, limit) as number;
  }

  /**
   * A search's plan follows how many documents its needle matches, which the trigram index
   * counts cheaply as far as asked (5 ms to 10,000, 28 to 50,000). Measured on a
   * million payments (docs/decisions.md, "A list at a million payments"):
   * - few: every match is looked up and the rest tested on it, a few ms, where walking the
   *   scope's index beside the list of matches read the whole scope (150 ms, 2 s for a deep
   *   page);
   * - some: that list beside the scope's index, which finds a page among tens of thousands of
   *   matches sooner than looking each one up;
   * - many, in a read that stops at a limit: the scope's index alone, each document tested,
   *   since the page is among its first documents (0.3 ms, where making the list of a
   *   million matches took 250 ms). A read of every answer still takes the list.
   */
  function textPlan(limited: boolean) {
    return (ftsTable: string, query: string): TextPlan => {
      const { fewMatches, manyMatches } = env.searchPlan;
      const found = matches(ftsTable, query, limited ? Math.max(fewMatches, manyMatches) : fewMatches);
      if (found < fewMatches) return 'drive';
      return limited && found >= manyMatches ? 'scan' : 'index';
    };
  }

  /**
   * The WHERE clause of `filter`, leaving out documents past their TTL. A read says whether
   * it stops at a limit, so that a text search in it is read by its plan; a write reads its
   * documents through the index as it always has.
   */
  function where(filter: Filter, read?: { limited: boolean }): Compiled {
    translateFilter(filter, asIs);
    const compiled = compileFilter(filter, read ? { ...context, textPlan: textPlan(read.limited) } : context);
    if (!ttl) return compiled;
    const x = ttl.expression;
    // The cutoff is written into the SQL in whole seconds. Bound, it changed on every call,
    // and SQLite prepares a statement again whenever such a parameter is bound anew (half
    // of a lookup by _id); as text it changes once a second and the statement stays
    // cached. Reads hide an expired document up to a second late, still sooner than
    // MongoDB's TTL monitor removes one (once a minute).
    const cutoff = sqlValue(new Date(Math.floor((Date.now() - ttl.seconds * 1000) / 1000) * 1000));
    return {
      ...compiled,
      sql: `${compiled.sql} AND (${x} IS NULL OR ${x} < '${TAG.date}' OR ${x} >= '${String(cutoff)}')`,
    };
  }

  function rememberArrays(doc: Plain): void {
    for (const path of arrayPaths(doc)) {
      if (arrays.has(path)) continue;
      addArrayPath.run(name, path);
      arrays.add(path);
    }
  }

  function insert(doc: Doc): void {
    rememberArrays(doc);
    const texts = encodeStored(doc);
    statement(`INSERT INTO ${table} (_id, data, side) VALUES (?, jsonb(?), jsonb(?))`).run(
      sqlValue(doc._id),
      texts.data,
      texts.side,
    );
  }

  type Row = StoredTexts & { rowid: number };

  /** Applies `update` to the stored row; returns the columns as now stored. */
  function rewrite(row: Row, update: Update): StoredTexts {
    if (changesSideOnly(update)) return { data: row.data, side: rewriteSide(row, update) };
    const doc = decodeStored<Doc>(row);
    const id = doc._id;
    applyUpdate(doc, update);
    if (doc._id !== id) throw new TypeError('_id cannot change');
    rememberArrays(doc);
    const texts = encodeStored(doc);
    statement(`UPDATE ${table} SET data = jsonb(?), side = jsonb(?) WHERE rowid = ?`).run(
      texts.data,
      texts.side,
      row.rowid,
    );
    return texts;
  }

  /**
   * An update of the outbox's fields alone: the document and its indexes stay as they are.
   * Returns the side column's new text.
   */
  function rewriteSide(row: Pick<Row, 'rowid' | 'side'>, update: Update): string {
    const side = row.side === null ? {} : decodeDocument<Plain>(row.side);
    applyUpdate(side, update);
    rememberArrays(side);
    const text = encodeDocument(side);
    statement(`UPDATE ${table} SET side = jsonb(?) WHERE rowid = ?`).run(text, row.rowid);
    return text;
  }

  const selectRow = `SELECT rowid, json(data) AS data, json(side) AS side FROM ${table}`;

  function findOneAndUpdate(filter: Filter, update: Update, upsert: boolean): T | null {
    const { sql, params } = where(filter);
    const row = statement(`${selectRow} WHERE ${sql} LIMIT 1`).get(...params) as Row | undefined;
    if (row) return decodeStored<T>(rewrite(row, update));
    if (!upsert) return null;
    const seed = nest(equalityFields(filter)) as Doc;
    if (typeof seed._id !== 'string') seed._id = randomUUID();
    applyUpdate(seed, update);
    insert(seed);
    return decodeStored<T>(encodeStored(seed));
  }

  /**
   * Returns only a count, so nothing is decoded for an answer; an update of the outbox's
   * fields alone (an event marked published) does not even read the document.
   */
  function updateMany(filter: Filter, update: Update): number {
    const { sql, params } = where(filter);
    if (changesSideOnly(update)) {
      const rows = statement(`SELECT rowid, json(side) AS side FROM ${table} WHERE ${sql}`).all(
        ...params,
      ) as Pick<Row, 'rowid' | 'side'>[];
      for (const row of rows) rewriteSide(row, update);
      return rows.length;
    }
    const rows = statement(`${selectRow} WHERE ${sql}`).all(...params) as Row[];
    for (const row of rows) rewrite(row, update);
    return rows.length;
  }

  function storeError(error: unknown): unknown {
    if (!isUniqueViolation(error)) return error;
    const duplicate = new DuplicateKeyError(name);
    duplicate.cause = error;
    return duplicate;
  }

  async function read<R>(operation: () => R): Promise<R> {
    if (isClosed()) throw new Error('store is closed');
    try {
      return operation();
    } catch (error) {
      throw storeError(error);
    }
  }

  /** Moves the documents queued for the text indexes into them, in the current group commit. */
  function indexQueuedTexts(): void {
    clearTimeout(textIndexing);
    textIndexing = undefined;
    if (isClosed()) return;
    const waiting = [...textQueues.values()].filter(
      ({ queued }) => statement(`SELECT EXISTS (SELECT 1 FROM ${queued})`).pluck().get() === 1,
    );
    if (waiting.length === 0) return;
    // A failed commit leaves the queue as it was, for the next pass.
    env
      .write(() => {
        for (const { index } of waiting) for (const sql of index) statement(sql).run();
      })
      .catch(() => undefined);
  }

  function indexTextsSoon(): void {
    if (textQueues.size === 0) return;
    textIndexing ??= setTimeout(() => {
      try {
        indexQueuedTexts();
      } catch {
        // The write could not begin (the database busy past its timeout, a disk error):
        // the queue waits for the next pass rather than taking the process down.
        indexTextsSoon();
      }
    }, TEXT_INDEX_DELAY_MS).unref();
  }

  async function write<R>(operation: () => R, statements: 'one' | 'many' = 'many'): Promise<R> {
    if (isClosed()) throw new Error('store is closed');
    indexTextsSoon();
    let committed: Promise<R>;
    try {
      committed = statements === 'one' ? env.writeOne(operation) : env.write(operation);
    } catch (error) {
      throw storeError(error);
    }
    return committed.catch((error: unknown) => {
      throw storeError(error);
    });
  }

  /** The rows a compiled filter reads: the collection, or the matches of the search that drives it. */
  const source = ({ from, params }: Compiled) => ({
    from: from?.sql ?? table,
    params: from ? [...from.params, ...params] : params,
  });

  function find(filter: Filter, options: FindOptions = {}): T[] {
    const compiled = where(filter, { limited: Boolean(options.limit) });
    const { from, params } = source(compiled);
    const paged = Boolean(options.limit || options.skip);
    // Written into the SQL, like the TTL cutoff in where(): a bound LIMIT had SQLite prepare
    // the statement again on every run. One cached statement per page size and offset.
    const page = paged
      ? ` LIMIT ${sqlInteger(options.limit || -1)} OFFSET ${sqlInteger(options.skip ?? 0)}`
      : '';
    const rows = statement(
      `SELECT json(data) AS data, json(side) AS side FROM ${from} WHERE ${compiled.sql}${compileSort(options.sort)}${page}`,
    ).all(...params) as StoredTexts[];
    return rows.map((row) => decodeStored<T>(row));
  }

  /**
   * The SQLite indexes made for one index spec, named by the spec's identity: the one
   * queries use (plain, unique or partial), the guard of a unique index's missing field, and
   * the guard's name before it (`legacyGuard`), which a start drops.
   */
  const indexNames = (spec: IndexSpec) => {
    const id = createHash('sha256')
      .update(JSON.stringify([name, spec.fields, spec.unique ?? false]))
      .digest('hex')
      .slice(0, 16);
    return {
      plain: `$ix_${id}`,
      unique: `$iu_${id}`,
      partial: `$ip_${id}`,
      missingGuard: `$un_${id}`,
      legacyGuard: `$ux_${id}`,
    };
  };

  /** Every SQLite index or table a spec may have been made as (see ensureIndex and ensureTextIndex). */
  function dropIndex(spec: IndexSpec): void {
    const fields = indexFields(spec);
    if (spec.text) {
      const id = textIndexId(fields);
      for (const trigger of ['insert', 'update', 'delete', ...QUEUE_TRIGGERS])
        db.exec(`DROP TRIGGER IF EXISTS "$fts_${id}_${trigger}"`);
      db.exec(`DROP TABLE IF EXISTS "$fts_${id}"`);
      db.exec(`DROP TABLE IF EXISTS "$fts_${id}_queue"`);
      for (const field of fields) textIndexes.delete(field);
      textQueues.delete(id);
      return;
    }
    for (const index of Object.values(indexNames(spec))) db.exec(`DROP INDEX IF EXISTS "${index}"`);
  }

  function ensureIndex(spec: IndexSpec): void {
    const fields = indexFields(spec);
    if (spec.text) return ensureTextIndex(fields);
    const columns = fields.map((f) => `${fieldExpression(f)}${spec.fields[f] === -1 ? ' DESC' : ''}`);
    const names = indexNames(spec);
    const unique = spec.unique ?? false;
    const expressions = fields.map((f) => fieldExpression(f));
    // A sparse index of one field holds only the documents that have it (a partial index):
    // most payments have no idempotency key or outcome, and an entry for each of them was a
    // B-tree insert and a page written per write, for lookups that never ask for null. An
    // equality or range on the field implies it is not null, so SQLite still uses it.
    const partial = spec.sparse && fields.length === 1;
    // The index queries use is UNIQUE whenever the spec is, so SQLite knows an equality on
    // all its fields finds one row and takes it over a wider index that matches more of the
    // filter (a payment by token within its project walked every payment of the project).
    const queried = partial ? names.partial : unique && !spec.sparse ? names.unique : names.plain;
    db.exec(
      `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${queried}" ON ${table} (${columns.join(', ')})${
        partial ? ` WHERE ${expressions[0]} IS NOT NULL` : ''
      }`,
    );
    // A store written before holds the same index, whole or not unique, under the plain name.
    if (queried !== names.plain) db.exec(`DROP INDEX IF EXISTS "${names.plain}"`);
    if (unique && !spec.sparse) {
      // SQLite's unique indexes let any number of NULLs through, which is the sparse reading;
      // MongoDB's plain unique index counts a missing field as one null value, so that one
      // is enforced as well: among the documents missing a field only (a stored string is
      // tagged, so no value equals the spelt-out 'null'), which every other write skips.
      const keys = expressions.map((x) => `ifnull(${x}, 'null')`);
      const missing = expressions.map((x) => `${x} IS NULL`).join(' OR ');
      db.exec(`DROP INDEX IF EXISTS "${names.legacyGuard}"`);
      db.exec(
        `CREATE UNIQUE INDEX IF NOT EXISTS "${names.missingGuard}" ON ${table} (${keys.join(', ')}) WHERE ${missing}`,
      );
    }
    if (spec.expireAfterSeconds !== undefined) {
      ttl = { expression: fieldExpression(fields[0] as string), seconds: spec.expireAfterSeconds };
      sweep();
    }
  }

  /**
   * A contentless FTS5 trigram table beside the collection, keyed by its rowid. Triggers
   * queue each document written whose searched fields changed (so every write path, and a
   * store opened by an older version, keeps the index whole), and the queue goes into the
   * index a batch at a time: FTS5 writes a new segment for each transaction that changes
   * it, 7 pages and 60 µs for one document, a payment's creation being one. A search, or
   * TEXT_INDEX_DELAY_MS after a write, moves the queue in first.
   */
  const textIndexId = (fields: string[]) =>
    createHash('sha256')
      .update(JSON.stringify([name, 'text', fields]))
      .digest('hex')
      .slice(0, 16);

  function ensureTextIndex(fields: string[]): void {
    const id = textIndexId(fields);
    const fts = quote(`$fts_${id}`);
    const queued = quote(`$fts_${id}_queue`);
    const columns = fields.map((_, i) => `c${i}`);
    const existed = db
      .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`)
      .get(`$fts_${id}`);
    const text = (row: string, field: string) => {
      const x = fieldExpression(field).replace(/^\((data|side) /, `(${row}.$1 `);
      return `CASE WHEN substr(${x}, 1, 2) = '${TAG.string}' THEN substr(${x}, 3) END`;
    };
    const values = (row: string) => fields.map((field) => text(row, field)).join(', ');
    const changed = fields.map((field) => `${text('old', field)} IS NOT ${text('new', field)}`).join(' OR ');
    const [queueInsert, queueUpdate, queueDelete] = QUEUE_TRIGGERS.map((trigger) =>
      quote(`$fts_${id}_${trigger}`),
    );
    // The triggers before the queue wrote the index at once; an older version makes them
    // again, and the queue's delete-then-insert keeps the index right beside them.
    db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(${columns.join(', ')}, content='', contentless_delete=1, tokenize='trigram');
      CREATE TABLE IF NOT EXISTS ${queued} (id INTEGER PRIMARY KEY);
      DROP TRIGGER IF EXISTS ${quote(`$fts_${id}_insert`)};
      DROP TRIGGER IF EXISTS ${quote(`$fts_${id}_update`)};
      CREATE TRIGGER IF NOT EXISTS ${queueInsert} AFTER INSERT ON ${table} BEGIN
        INSERT OR IGNORE INTO ${queued} (id) VALUES (new.rowid);
      END;
      CREATE TRIGGER IF NOT EXISTS ${queueUpdate} AFTER UPDATE OF data ON ${table} WHEN ${changed} BEGIN
        INSERT OR IGNORE INTO ${queued} (id) VALUES (new.rowid);
      END;
      CREATE TRIGGER IF NOT EXISTS ${quote(`$fts_${id}_delete`)} AFTER DELETE ON ${table} BEGIN
        DELETE FROM ${fts} WHERE rowid = old.rowid;
      END;
      CREATE TRIGGER IF NOT EXISTS ${queueDelete} AFTER DELETE ON ${table} BEGIN
        DELETE FROM ${queued} WHERE id = old.rowid;
      END;
    `);
    if (!existed) {
      db.exec(
        `INSERT INTO ${fts} (rowid, ${columns.join(', ')}) SELECT rowid, ${values(table)} FROM ${table}`,
      );
    }
    textQueues.set(id, {
      queued,
      index: [
        `DELETE FROM ${fts} WHERE rowid IN (SELECT id FROM ${queued})`,
        `INSERT INTO ${fts} (rowid, ${columns.join(', ')}) SELECT ${table}.rowid, ${values(table)} FROM ${queued} JOIN ${table} ON ${table}.rowid = ${queued}.id`,
        `DELETE FROM ${queued}`,
      ],
    });
    fields.forEach((field, i) => textIndexes.set(field, { table: fts, column: `c${i}` }));
    indexTextsSoon();
  }

  function sweep(now = new Date()): number {
    if (!ttl || isClosed()) return 0;
    const x = ttl.expression;
    const cutoff = sqlValue(new Date(now.getTime() - ttl.seconds * 1000));
    return statement(`DELETE FROM ${table} WHERE ${x} >= '${TAG.date}' AND ${x} < ?`).run(cutoff).changes;
  }

  /** The rows SQLite visits: its plan says whether an index serves, a counter how many it yields. */
  function docsExamined(filter: Filter): number {
    const compiled = where(filter, { limited: false });
    const { from, params } = source(compiled);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT data FROM ${from} WHERE ${compiled.sql}`)
      .all(...params) as {
      detail: string;
    }[];
    // A trigram index answers a MATCH by its own lookup, which the plan also calls a SCAN,
    // as it calls the walk over the matches it yields.
    const walksTable = ({ detail }: { detail: string }) =>
      detail.startsWith('SCAN') && !detail.includes('VIRTUAL TABLE') && !detail.startsWith('SCAN matches');
    if (plan.some(walksTable)) return db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    env.examined.count = 0;
    db.prepare(`SELECT count(*) FROM ${from} WHERE mmp_examined(${table}.rowid) AND ${compiled.sql}`).get(
      ...params,
    );
    return env.examined.count;
  }

  return {
    name,
    insertOne: (doc) => write(() => insert(doc), 'one'),
    findOne: (filter) => read(() => find(filter, { limit: 1 })[0] ?? null),
    find: (filter, options) => read(() => find(filter, options)),
    count: (filter, options = {}) =>
      read(() => {
        const compiled = where(filter, { limited: options.limit !== undefined });
        const { from, params } = source(compiled);
        if (options.limit === undefined)
          return statement(`SELECT count(*) FROM ${from} WHERE ${compiled.sql}`)
            .pluck()
            .get(...params) as number;
        return statement(`SELECT count(*) FROM (SELECT 1 FROM ${from} WHERE ${compiled.sql} LIMIT ?)`)
          .pluck()
          .get(...params, options.limit) as number;
      }),
    sum: (filter, field) =>
      read(() => {
        if (field !== '_id' && context.crossesArray(field))
          throw new TypeError(`cannot sum ${field}: it has held an array`);
        const x = fieldExpression(field);
        const compiled = where(filter, { limited: false });
        const { from, params } = source(compiled);
        // Only numbers add: every other value is stored as tagged text (codec.ts).
        return statement(
          `SELECT total(CASE WHEN typeof(${x}) IN ('integer', 'real') THEN ${x} END) FROM ${from} WHERE ${compiled.sql}`,
        )
          .pluck()
          .get(...params) as number;
      }),
    findOneAndUpdate: (filter, update, options = {}) =>
      write(() => {
        translateUpdate(update, asIs);
        return findOneAndUpdate(filter, update, options.upsert ?? false);
      }, 'one'),
    updateMany: (filter, update) =>
      write(() => {
        translateUpdate(update, asIs);
        return updateMany(filter, update);
      }),
    deleteMany: (filter) =>
      write(() => {
        const { sql, params } = where(filter);
        return statement(`DELETE FROM ${table} WHERE ${sql}`).run(...params).changes;
      }, 'one'),
    docsExamined: (filter) => read(() => docsExamined(filter)),
    ensureIndex: (spec) => write(() => ensureIndex(spec)),
    dropIndex: (spec) => write(() => dropIndex(spec)),
    sweep,
  };
}
