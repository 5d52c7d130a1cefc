import { randomUUID } from 'node:crypto';
import {
  MongoClient,
  MongoServerError,
  type CreateIndexesOptions,
  type Document,
  type Filter as MongoFilter,
} from 'mongodb';
import { DuplicateKeyError, type Collection, type Doc, type Store } from './port.js';
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

export type MongoStoreOptions = { url: string; database: string };

const PING_TIMEOUT_MS = 3_000;

const mongoDialect: Dialect = {
  condition(condition) {
    const { $contains, ...rest } = condition;
    return $contains === undefined
      ? rest
      : { ...rest, $regex: escapeRegExp($contains as string), $options: 'i' };
  },
  field(field, value) {
    return [{ [field]: isOperatorObject(value) ? mongoDialect.condition(value) : value }];
  },
};

const filterOf = (filter: Parameters<typeof translateFilter>[0]) =>
  translateFilter(filter, mongoDialect) as MongoFilter<Document>;

const isDuplicateKey = (error: unknown) => error instanceof MongoServerError && error.code === 11000;

function toStoreError(error: unknown, collection: string): unknown {
  if (!isDuplicateKey(error)) return error;
  const duplicate = new DuplicateKeyError(collection);
  duplicate.cause = error;
  return duplicate;
}

function openCollection<T extends Doc>(client: MongoClient, database: string, name: string): Collection<T> {
  const coll = client.db(database).collection<Document>(name);

  async function run<R>(operation: () => Promise<R>): Promise<R> {
    try {
      return await operation();
    } catch (error) {
      throw toStoreError(error, name);
    }
  }

  return {
    name,
    insertOne: (doc) => run(async () => void (await coll.insertOne(doc as Document))),
    findOne: (filter) => run(async () => (await coll.findOne(filterOf(filter))) as T | null),
    find: (filter, options = {}) =>
      run(async () => {
        const cursor = coll.find(filterOf(filter));
        if (options.sort) cursor.sort(options.sort);
        if (options.skip) cursor.skip(options.skip);
        if (options.limit) cursor.limit(options.limit);
        return (await cursor.toArray()) as unknown as T[];
      }),
    count: (filter, options = {}) =>
      run(() =>
        coll.countDocuments(filterOf(filter), options.limit === undefined ? {} : { limit: options.limit }),
      ),
    sum: (filter, field) =>
      run(async () => {
        if (field.startsWith('$')) throw new TypeError(`cannot sum ${field}`);
        const [row] = await coll
          .aggregate<{ total: number }>([
            { $match: filterOf(filter) },
            { $group: { _id: null, total: { $sum: `$${field}` } } },
          ])
          .toArray();
        return row?.total ?? 0;
      }),
    findOneAndUpdate: (filter, update, options = {}) =>
      run(async () => {
        const modifiers = translateUpdate(update, mongoDialect);
        // The port promises string ids; left alone MongoDB would upsert with an ObjectId.
        if (options.upsert && !Object.hasOwn(equalityFields(filter), '_id')) {
          modifiers.$setOnInsert = { _id: randomUUID() };
        }
        const attempt = () =>
          coll.findOneAndUpdate(filterOf(filter), modifiers, {
            returnDocument: 'after',
            upsert: options.upsert ?? false,
            includeResultMetadata: false,
          });
        try {
          return (await attempt()) as T | null;
        } catch (error) {
          // Two upserts can both miss and both insert; the loser retries once as an update,
          // the retry MongoDB's documentation asks of applications.
          if (!options.upsert || !isDuplicateKey(error)) throw error;
          return (await attempt()) as T | null;
        }
      }),
    // matchedCount, not modifiedCount: the embedded store does not tell a no-op update
    // apart, and the port promises the same number from both adapters.
    updateMany: (filter, update) =>
      run(
        async () =>
          (await coll.updateMany(filterOf(filter), translateUpdate(update, mongoDialect))).matchedCount,
      ),
    deleteMany: (filter) => run(async () => (await coll.deleteMany(filterOf(filter))).deletedCount),
    docsExamined: (filter) =>
      run(async () => {
        const plan = await coll.find(filterOf(filter)).explain('executionStats');
        return Number(
          (plan as { executionStats?: { totalDocsExamined?: number } }).executionStats?.totalDocsExamined,
        );
      }),
    dropIndex: (spec) =>
      run(async () => {
        indexFields(spec);
        if (spec.text) return;
        // MongoDB names an index by its fields and directions (field_1_other_-1).
        const name = Object.entries(spec.fields)
          .map(([field, direction]) => `${field}_${direction}`)
          .join('_');
        if (await coll.indexExists(name)) await coll.dropIndex(name);
      }),
    ensureIndex: (spec) =>
      run(async () => {
        indexFields(spec);
        if (spec.text) return;
        const options: CreateIndexesOptions = {};
        if (spec.unique) options.unique = true;
        if (spec.sparse) options.sparse = true;
        if (spec.expireAfterSeconds !== undefined) options.expireAfterSeconds = spec.expireAfterSeconds;
        await coll.createIndex(spec.fields, options);
      }),
  };
}

export async function openMongoStore({ url, database }: MongoStoreOptions): Promise<Store> {
  // ignoreUndefined matches the embedded store, which drops undefined fields, not nulls them.
  const client = new MongoClient(url, { ignoreUndefined: true });
  await client.connect();
  const collections = new Map<string, Collection<Doc>>();

  return {
    kind: 'mongodb',
    collection<T extends Doc>(name: string): Collection<T> {
      checkCollectionName(name);
      let collection = collections.get(name);
      if (!collection) {
        collection = openCollection<Doc>(client, database, name);
        collections.set(name, collection);
      }
      return collection as unknown as Collection<T>;
    },
    async ping() {
      let timer: NodeJS.Timeout | undefined;
      // Readiness must answer quickly; server selection alone can wait 30 s.
      const timeout = new Promise<false>(
        (resolve) => (timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS)),
      );
      const answer = client
        .db(database)
        .command({ ping: 1 })
        .then(
          (reply: Plain) => reply.ok === 1,
          () => false,
        );
      try {
        return await Promise.race([answer, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => client.close(),
  };
}
