import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type IndexSpec,
  type Store,
  type Update,
} from './port.js';

/** One collection of a service's store: its name there and every index it needs. */
export type CollectionSpec<T extends Doc> = {
  readonly name: string;
  readonly indexes: readonly IndexSpec[];
  /** Types the documents only; never set. */
  readonly doc?: T;
};

export function collection<T extends Doc>(
  name: string,
  indexes: readonly IndexSpec[] = [],
): CollectionSpec<T> {
  return { name, indexes };
}

export type CollectionSpecs = Record<string, CollectionSpec<Doc>>;

export type Collections<S extends CollectionSpecs> = {
  [K in keyof S]: S[K] extends CollectionSpec<infer T> ? Collection<T> : never;
};

/** A service's collections by the names its code uses; the only place that names them in the store. */
export function openCollections<S extends CollectionSpecs>(store: Store, specs: S): Collections<S> {
  return Object.fromEntries(
    Object.entries(specs).map(([key, spec]) => [key, store.collection(spec.name)]),
  ) as Collections<S>;
}

/** Creates every index of `specs` on their collections in `db` (idempotent), at start. */
export async function ensureCollectionIndexes<S extends CollectionSpecs>(
  db: Collections<S>,
  specs: S,
): Promise<void> {
  for (const [key, spec] of Object.entries(specs)) {
    for (const index of spec.indexes) await (db[key] as Collection<Doc>).ensureIndex(index);
  }
}

/**
 * Stores `doc` once: when a unique key already holds a document with its `_id` (a repeated
 * announcement, a redelivery), that first document is returned instead.
 */
export async function insertOnce<T extends Doc>(collection: Collection<T>, doc: T): Promise<T> {
  try {
    await collection.insertOne(doc);
    return doc;
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    const existing = await collection.findOne({ _id: doc._id });
    if (!existing) throw error;
    return existing;
  }
}

/**
 * Compare-and-set: applies `update` to `doc` only while the fields it was judged on still
 * hold what was read; null when another change came first (read again and retry, or refuse).
 */
export function updateIfUnchanged<T extends Doc>(
  collection: Collection<T>,
  doc: T,
  judgedOn: readonly (keyof T & string)[],
  update: Update,
): Promise<T | null> {
  const filter: Filter = {
    _id: doc._id,
    ...Object.fromEntries(judgedOn.map((field) => [field, doc[field]])),
  };
  return collection.findOneAndUpdate(filter, update);
}

/** Sets `fields` of one document with its `updatedAt`, whatever its state; null when it is gone. */
export function setFields<T extends Doc>(
  collection: Collection<T>,
  id: string,
  fields: Partial<T>,
  at: string,
): Promise<T | null> {
  return collection.findOneAndUpdate({ _id: id }, { $set: { ...fields, updatedAt: at } });
}

/** A date range as a filter condition: from `from` included to `to` excluded (a UTC day). */
export function within(range: { from: string; to: string }) {
  return { $gte: range.from, $lt: range.to };
}

/**
 * Whether `update` touches a field a reader is shown: fields beginning with `_` are the
 * store's bookkeeping (the outbox).
 */
const changesWhatIsShown = (update: Update) =>
  Object.values(update).some((fields) => Object.keys(fields ?? {}).some((field) => !field.startsWith('_')));

/**
 * `collection`, calling `written` after each change a reader could see: with the document
 * after a single update, with nothing after a write to many (any may have changed). So a
 * cache of what readers were answered is told whatever it must drop. Not announced: updates
 * of bookkeeping fields alone (`_outbox`, `_outboxPending`), and inserts, since before one a
 * reader was answered that nothing is there, which such caches never keep (a notice on
 * every payment created was one more message through NATS and the gateway for nothing).
 */
export function announcingWrites<T extends Doc>(
  collection: Collection<T>,
  written: (doc?: T) => void,
): Collection<T> {
  return {
    name: collection.name,
    findOne: (filter) => collection.findOne(filter),
    find: (filter, options) => collection.find(filter, options),
    count: (filter, options) => collection.count(filter, options),
    sum: (filter, field) => collection.sum(filter, field),
    docsExamined: (filter) => collection.docsExamined(filter),
    ensureIndex: (spec) => collection.ensureIndex(spec),
    dropIndex: (spec) => collection.dropIndex(spec),
    insertOne: (doc) => collection.insertOne(doc),
    async findOneAndUpdate(filter, update, options) {
      const updated = await collection.findOneAndUpdate(filter, update, options);
      if (updated && changesWhatIsShown(update)) written(updated);
      return updated;
    },
    async updateMany(filter, update) {
      const matched = await collection.updateMany(filter, update);
      if (matched > 0 && changesWhatIsShown(update)) written();
      return matched;
    },
    async deleteMany(filter) {
      const removed = await collection.deleteMany(filter);
      if (removed > 0) written();
      return removed;
    },
  };
}
