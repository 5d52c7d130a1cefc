/**
 * The store port: the small set of operations every service needs, implemented by the
 * MongoDB adapter (production) and the embedded SQLite adapter (one-command start).
 * Status changes use `findOneAndUpdate` with a guard on the current state (compare-and-set),
 * never read-modify-write.
 */

export type Doc = { _id: string } & Record<string, unknown>;

/**
 * The filter language both adapters understand: equality on (dotted) fields and these
 * operators. Nothing else is promised, so no service can depend on adapter quirks: both
 * adapters reject any other operator, and an `undefined` value, with a TypeError.
 * Equality on an array field matches any element; a dotted path reaches into arrays of
 * sub-documents (`'lines.sku': 'x'`). A missing field equals null, as in MongoDB.
 */
export type FieldCondition =
  | unknown
  | {
      $eq?: unknown;
      $ne?: unknown;
      $in?: unknown[];
      $nin?: unknown[];
      $gt?: unknown;
      $gte?: unknown;
      $lt?: unknown;
      $lte?: unknown;
      $exists?: boolean;
      /** Case-insensitive substring match; the adapter escapes the text. */
      $contains?: string;
    };

export type Filter = { [field: string]: FieldCondition } & {
  $or?: Filter[];
  $and?: Filter[];
};

export type Update = {
  $set?: Record<string, unknown>;
  $unset?: Record<string, true>;
  $inc?: Record<string, number>;
  /** Appends every value given in `$each`. */
  $push?: Record<string, { $each: unknown[] }>;
  /** Removes array elements equal to the value, or matching the sub-filter. */
  $pull?: Record<string, unknown>;
};

/** Keys apply in insertion order; add `_id` last for a stable order between pages. */
export type Sort = Record<string, 1 | -1>;

export type FindOptions = { sort?: Sort; skip?: number; limit?: number };

export type IndexSpec = {
  fields: Record<string, 1 | -1>;
  unique?: boolean;
  /**
   * A substring index over these (string) fields, for `$contains` with three characters or
   * more; the direction of each field is ignored. The embedded store keeps a trigram index
   * (SQLite FTS5), so a search reads its matches rather than the collection. MongoDB has no
   * index an unanchored, case-insensitive regex can use, so it creates none: there a search
   * reads the documents its other conditions select, off the event loop.
   */
  text?: boolean;
  /**
   * Documents expire this many seconds after the date in the (single, top-level) indexed
   * field. Removal is eventual: MongoDB sweeps every minute, the embedded store on the next
   * read that meets the document.
   */
  expireAfterSeconds?: number;
  /** Unique only among documents that have the fields (sparse). */
  sparse?: boolean;
};

export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
  constructor(readonly collection: string) {
    super(`duplicate key in ${collection}`);
  }
}

export interface Collection<T extends Doc> {
  readonly name: string;
  /** Throws DuplicateKeyError when a unique index (or _id) is violated. */
  insertOne(doc: T): Promise<void>;
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /**
   * How many documents match, counting no further than `limit` when it is given: a capped
   * count reads at most `limit` index entries, so its cost does not grow with the data.
   */
  count(filter: Filter, options?: { limit?: number }): Promise<number>;
  /**
   * The total of a numeric field over the documents that match, computed where they are
   * kept (no document is read into the process); one whose field is missing or not a
   * number adds nothing. The field may not lie inside an array.
   */
  sum(filter: Filter, field: string): Promise<number>;
  /**
   * Atomically applies `update` to the first document matching `filter` and returns the
   * document after the update, or null when nothing matched (the guard failed).
   * With `upsert`, inserts `{...equality fields of filter, ...$set}` when nothing matches,
   * with a random UUID as `_id` unless the filter gives one; a guard that fails on an
   * existing `_id` is then a DuplicateKeyError.
   */
  findOneAndUpdate(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<T | null>;
  /** Returns how many documents matched (and were updated, even where nothing changed). */
  updateMany(filter: Filter, update: Update): Promise<number>;
  /** Returns how many documents were removed. */
  deleteMany(filter: Filter): Promise<number>;
  /**
   * How many documents the adapter reads to answer `filter`: the candidates an index yields,
   * or the whole collection when none serves it. Lets a test prove that a query run for the
   * life of a service meets its index, without timing it.
   */
  docsExamined(filter: Filter): Promise<number>;
  /**
   * Idempotent. Changing the options of an existing index is not: MongoDB refuses it and the
   * embedded store keeps the old ones, so give a changed index a changed field list.
   */
  ensureIndex(spec: IndexSpec): Promise<void>;
  /**
   * Removes the index `spec` declares, if there is one; idempotent. An index superseded by
   * one with a changed field list stays otherwise, and every write keeps it up to date.
   */
  dropIndex(spec: IndexSpec): Promise<void>;
}

export interface Store {
  /** The adapter in use, for logs and /readyz. */
  readonly kind: 'mongodb' | 'embedded';
  collection<T extends Doc>(name: string): Collection<T>;
  /** True while the backing database answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
