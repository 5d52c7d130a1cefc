import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import nedb from '@seald-io/nedb';
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type IndexSpec,
  type Store,
} from './port.js';
import {
  checkCollectionName,
  equalityFields,
  escapeRegExp,
  indexFields,
  isOperatorObject,
  translateFilter,
  translateUpdate,
  type Dialect,
  type Plain,
} from './translate.js';

/**
 * The embedded store: one NeDB datafile per collection (`<dir>/<collection>.db`), held in
 * memory and appended to on every write. One process per directory; it is the development
 * and single-machine default, not a production database.
 */

export type EmbeddedStoreOptions = { dir: string };

// A CommonJS package typed with `export default`: under NodeNext the default import is the
// class at runtime but typed as the module, so take whichever the loader handed us.
type NedbClass = typeof nedb.default;
const Datastore: NedbClass = (nedb as { default?: NedbClass }).default ?? (nedb as unknown as NedbClass);
type Datastore = InstanceType<NedbClass>;
// NeDB has no explain: this is the step its own find uses to pick candidates from an index
// (or take every document), before matching. Internal, so the contract suite pins it.
type CandidatePicker = { _getRawCandidates(query: Plain): unknown[] };

// Every update appends a line; compaction rewrites the file to its live documents.
const COMPACTION_INTERVAL_MS = 10 * 60_000;

const nullOrMissing = (field: string): Plain => ({
  $or: [{ [field]: null }, { [field]: { $exists: false } }],
});

/**
 * NeDB spells the port's operators differently: it has no `$eq`, takes a RegExp for `$regex`,
 * and, unlike MongoDB, a missing field does not equal null, so null conditions are widened
 * here to read the way MongoDB reads them.
 */
const nedbDialect: Dialect = {
  condition(condition) {
    const out: Plain = {};
    for (const [op, value] of Object.entries(condition)) {
      if (op === '$contains') out.$regex = new RegExp(escapeRegExp(value as string), 'i');
      else if (op === '$eq') out.$in = [value];
      else out[op] = value;
    }
    if (Object.hasOwn(condition, '$eq') && Object.hasOwn(condition, '$in'))
      throw new TypeError('$eq with $in is not supported here');
    return out;
  },
  field(field, value) {
    if (value === null) return [nullOrMissing(field)];
    if (!isOperatorObject(value)) return [{ [field]: value }];
    const ops: Plain = {};
    const more: Plain[] = [];
    for (const [op, operand] of Object.entries(value)) {
      if (op === '$eq') more.push(operand === null ? nullOrMissing(field) : { [field]: operand });
      else if (op === '$ne' && operand === null)
        more.push({ [field]: { $exists: true } }, { [field]: { $ne: null } });
      else if ((op === '$in' || op === '$nin') && (operand as unknown[]).includes(null)) {
        const others = (operand as unknown[]).filter((v) => v !== null);
        if (op === '$in')
          more.push({ $or: [{ [field]: { $in: others } }, nullOrMissing(field).$or as Plain[]].flat() });
        else
          more.push(
            { [field]: { $nin: others } },
            { [field]: { $exists: true } },
            { [field]: { $ne: null } },
          );
      } else if (op === '$contains') ops.$regex = new RegExp(escapeRegExp(operand as string), 'i');
      else ops[op] = operand;
    }
    withLowerBound(ops);
    return Object.keys(ops).length > 0 ? [{ [field]: ops }, ...more] : more;
  },
};

/**
 * NeDB orders a missing field before every value, so an index walk for "at most X" starts
 * with every document lacking the field (a sweep's whole history). A lower bound of X's own
 * type skips them; comparisons only ever match values of that type, so no result changes.
 */
function withLowerBound(ops: Plain): void {
  const upper = ops.$lte ?? ops.$lt;
  if (upper === undefined || ops.$gt !== undefined || ops.$gte !== undefined) return;
  if (upper instanceof Date) ops.$gte = new Date(-8.64e15);
  else if (typeof upper === 'string') ops.$gte = '';
  else if (typeof upper === 'number') ops.$gte = -Infinity;
}

function toStoreError(error: unknown, collection: string): unknown {
  if ((error as { errorType?: unknown } | null)?.errorType !== 'uniqueViolated') return error;
  const duplicate = new DuplicateKeyError(collection);
  duplicate.cause = error;
  return duplicate;
}

/** `{'a.b': 1}` → `{a: {b: 1}}`: NeDB builds an upserted document from non-dotted keys only. */
function nest(flat: Plain): Plain {
  const out: Plain = {};
  for (const [dotted, value] of Object.entries(flat)) {
    const parts = dotted.split('.');
    const last = parts.pop() as string;
    let node = out;
    for (const part of parts) {
      const next = node[part] ?? {};
      if (typeof next !== 'object' || next === null)
        throw new TypeError(`upsert: conflicting filter fields at ${dotted}`);
      node = node[part] = next as Plain;
    }
    node[last] = value;
  }
  return out;
}

function openCollection<T extends Doc>(
  name: string,
  db: Datastore,
  ready: () => Promise<void>,
): Collection<T> {
  async function run<R>(operation: () => Promise<R>): Promise<R> {
    await ready();
    try {
      return await operation();
    } catch (error) {
      throw toStoreError(error, name);
    }
  }

  // One executor task: NeDB runs it to completion before the next operation starts, which is
  // what makes the guard in the filter a compare-and-set.
  async function updateOne(query: Plain, update: Plain): Promise<T | null> {
    const result = await db.updateAsync(query, update, {
      multi: false,
      upsert: false,
      returnUpdatedDocs: true,
    });
    return (result.affectedDocuments as T | null | undefined) ?? null;
  }

  async function insertByUpsert(filter: Filter, update: Plain): Promise<T> {
    const seed = nest(equalityFields(filter));
    if (typeof seed._id !== 'string') seed._id = randomUUID();
    // The $and can never match, so NeDB's upsert always inserts: it strips operators from the
    // query and applies the update to what remains, that is `seed`.
    const query = { ...seed, $and: [{ _id: { $in: [] } }] };
    const result = await db.updateAsync(query, update, { upsert: true, returnUpdatedDocs: true });
    return result.affectedDocuments as unknown as T;
  }

  return {
    name,
    insertOne: (doc) => run(async () => void (await db.insertAsync(doc))),
    findOne: (filter) =>
      run(
        async () =>
          ((await db.findOneAsync(translateFilter(filter, nedbDialect))) as unknown as T | null) ?? null,
      ),
    find: (filter, options = {}) =>
      run(async () => {
        let cursor = db.findAsync(translateFilter(filter, nedbDialect));
        if (options.sort) cursor = cursor.sort(options.sort);
        if (options.skip) cursor = cursor.skip(options.skip);
        if (options.limit) cursor = cursor.limit(options.limit);
        return (await cursor) as unknown as T[];
      }),
    count: (filter) =>
      run(async () => (await db.countAsync(translateFilter(filter, nedbDialect))) as unknown as number),
    findOneAndUpdate: (filter, update, options = {}) =>
      run(async () => {
        const query = translateFilter(filter, nedbDialect);
        const modifiers = translateUpdate(update, nedbDialect);
        const updated = await updateOne(query, modifiers);
        if (updated || !options.upsert) return updated;
        try {
          return await insertByUpsert(filter, modifiers);
        } catch (error) {
          // A concurrent upsert may have inserted the document between our two steps; like
          // MongoDB, retry once as an update. A guard that still fails stays a duplicate key.
          if ((error as { errorType?: unknown }).errorType !== 'uniqueViolated') throw error;
          const retried = await updateOne(query, modifiers);
          if (retried) return retried;
          throw error;
        }
      }),
    updateMany: (filter, update) =>
      run(async () => {
        const result = await db.updateAsync(
          translateFilter(filter, nedbDialect),
          translateUpdate(update, nedbDialect),
          { multi: true },
        );
        return result.numAffected;
      }),
    deleteMany: (filter) => run(() => db.removeAsync(translateFilter(filter, nedbDialect), { multi: true })),
    docsExamined: (filter) =>
      run(
        async () =>
          (db as unknown as CandidatePicker)._getRawCandidates(translateFilter(filter, nedbDialect)).length,
      ),
    ensureIndex: (spec: IndexSpec) =>
      run(async () => {
        const fields = indexFields(spec);
        const fieldName = fields.length === 1 ? (fields[0] as string) : fields;
        // NeDB does not persist expireAfterSeconds and ignores ensureIndex for an index it
        // reloaded from disk, so after a restart TTL would silently stop: recreate it instead.
        if (spec.expireAfterSeconds !== undefined) await db.removeIndexAsync(fieldName);
        await db.ensureIndexAsync({
          fieldName,
          unique: spec.unique ?? false,
          // Sparseness only changes what a unique index refuses; NeDB's sparse indexes also
          // lose Date values from range queries, so a non-unique one is made plain.
          sparse: (spec.sparse ?? false) && (spec.unique ?? false),
          ...(spec.expireAfterSeconds !== undefined && { expireAfterSeconds: spec.expireAfterSeconds }),
        });
      }),
  };
}

export async function openEmbeddedStore({ dir }: EmbeddedStoreOptions): Promise<Store> {
  await mkdir(dir, { recursive: true });
  const open = new Map<string, { db: Datastore; loaded: Promise<boolean>; collection: Collection<Doc> }>();
  let closed = false;

  function collection<T extends Doc>(name: string): Collection<T> {
    if (closed) throw new Error('store is closed');
    checkCollectionName(name);
    let entry = open.get(name);
    if (!entry) {
      // onload keeps a corrupt file from becoming an unhandled rejection; every operation
      // awaits the load and reports its error instead.
      const db = new Datastore({
        filename: path.join(dir, `${name}.db`),
        autoload: true,
        onload: () => undefined,
      });
      db.setAutocompactionInterval(COMPACTION_INTERVAL_MS);
      const loading = db.autoloadPromise ?? Promise.resolve();
      const ready = async () => {
        if (closed) throw new Error('store is closed');
        await loading;
      };
      const loaded = loading.then(
        () => true,
        () => false,
      );
      entry = { db, loaded, collection: openCollection<Doc>(name, db, ready) };
      open.set(name, entry);
    }
    return entry.collection as unknown as Collection<T>;
  }

  return {
    kind: 'embedded',
    collection,
    async ping() {
      if (closed) return false;
      return access(dir, constants.W_OK).then(
        () => true,
        () => false,
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(
        [...open.values()].map(async ({ db, loaded }) => {
          db.stopAutocompaction();
          // Queued behind pending writes, so close() returns once they are on disk; skipped for
          // a file that never loaded, whose queue would never run.
          if (await loaded) await db.compactDatafileAsync();
        }),
      );
    },
  };
}
