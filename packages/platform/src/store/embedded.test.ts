import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { describeStoreContract } from '../testing/store-contract/index.js';
import { EMBEDDED_FILE, groupCommits, openEmbeddedStore } from './embedded.js';
import { openStore } from './open.js';
import { DuplicateKeyError, type Doc } from './port.js';

/** Pages written to the write-ahead log since its last checkpoint. */
function walPages(dbFile: string): number {
  const wal = `${dbFile}-wal`;
  return existsSync(wal) ? Math.max(0, (statSync(wal).size - 32) / (4096 + 24)) : 0;
}

/** Empties the write-ahead log once the store's group commit under way is done. */
async function checkpoint(dbFile: string): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  const db = new Database(dbFile);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** How many documents wait to go into the store's text index. */
function textQueueLength(dbFile: string): number {
  const db = new Database(dbFile, { readonly: true });
  try {
    const queue = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '$fts_%_queue'`)
      .pluck()
      .get() as string;
    return db.prepare(`SELECT count(*) FROM "${queue}"`).pluck().get() as number;
  } finally {
    db.close();
  }
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'mmp-store-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describeStoreContract('embedded', () => openEmbeddedStore({ dir: path.join(dir, 'contract') }));
// A text search answers the same by every plan: each run moves the limits so that the
// contract's few documents are read by one plan (see textPlan in embedded/collection.ts).
const EVERY = Number.MAX_SAFE_INTEGER;
for (const [plan, searchPlan] of [
  ['from its matches', { fewMatches: EVERY, manyMatches: EVERY }],
  ['through the list of its matches', { fewMatches: 0, manyMatches: EVERY }],
  ['by the exact test alone when limited', { fewMatches: 0, manyMatches: 0 }],
] as const) {
  describeStoreContract(`embedded, searches read ${plan}`, () =>
    openEmbeddedStore({
      dir: path.join(dir, `contract-${searchPlan.fewMatches}-${searchPlan.manyMatches}`),
      searchPlan,
    }),
  );
}

describe('a search on the embedded store', () => {
  it('reads a rare needle from its matches, not from the scope its other conditions select', async () => {
    const store = await openEmbeddedStore({ dir: path.join(dir, 'rare-needle') });
    const orders = store.collection<Doc & { shop: string; label: string }>('orders');
    await orders.ensureIndex({ fields: { shop: 1 } });
    await orders.ensureIndex({ fields: { label: 1 }, text: true });
    for (let i = 0; i < 300; i += 1)
      await orders.insertOne({
        _id: `o${i}`,
        shop: 'one',
        label: i % 150 === 7 ? `rare gift ${i}` : `order ${i}`,
      });
    const search = { shop: 'one', $or: [{ label: { $contains: 'RARE GIFT' } }] };
    expect(await orders.docsExamined(search)).toBe(2);
    expect((await orders.find(search, { sort: { _id: -1 }, limit: 5 })).map((o) => o._id)).toEqual([
      'o7',
      'o157',
    ]);
    expect(await orders.count(search, { limit: 10 })).toBe(2);
    // A needle most documents match leaves the list of matches out of a read that stops at a limit.
    const common = { shop: 'one', label: { $contains: 'order' } };
    expect((await orders.find(common, { sort: { _id: 1 }, limit: 2 })).map((o) => o._id)).toEqual([
      'o0',
      'o1',
    ]);
    await store.close();
  });
});

describe('embedded store', () => {
  it('keeps one database under the service directory, readable by its owner only', async () => {
    const store = await openStore({ dataDir: dir, service: 'svc' });
    expect(store.kind).toBe('embedded');
    await store.collection('payments').insertOne({ _id: '1' });
    await store.close();
    expect((await stat(path.join(dir, 'svc'))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, 'svc', EMBEDDED_FILE))).mode & 0o777).toBe(0o600);
  });

  it('imports the NeDB datafiles an older version left, once', async () => {
    const legacy = path.join(dir, 'legacy');
    await mkdir(legacy);
    const lines = [
      { _id: 'a', status: 'open', at: { $$date: Date.UTC(2024, 0, 1) }, lines: [{ sku: 's1' }] },
      { _id: 'b', status: 'open' },
      { $$indexCreated: { fieldName: 'status' } },
      { _id: 'a', status: 'paid', at: { $$date: Date.UTC(2024, 0, 1) }, lines: [{ sku: 's1' }] },
      { _id: 'b', $$deleted: true },
    ];
    await writeFile(path.join(legacy, 'orders.db'), lines.map((l) => JSON.stringify(l)).join('\n'));
    const store = await openEmbeddedStore({ dir: legacy });
    const orders = store.collection<Doc>('orders');
    expect(await orders.find({})).toEqual([
      { _id: 'a', status: 'paid', at: new Date(Date.UTC(2024, 0, 1)), lines: [{ sku: 's1' }] },
    ]);
    expect(await orders.count({ 'lines.sku': 's1' })).toBe(1);
    await store.close();
    expect(existsSync(path.join(legacy, 'orders.db'))).toBe(false);
    const again = await openEmbeddedStore({ dir: legacy });
    expect(await again.collection('orders').count({})).toBe(1);
    await again.close();
  });

  it('matches $contains case-insensitively beyond ASCII, and dotted paths once a field held an array', async () => {
    const store = await openEmbeddedStore({ dir: path.join(dir, 'unicode') });
    const people = store.collection<Doc & { name: string; meta?: unknown }>('people');
    await people.insertOne({ _id: '1', name: 'ÉLODIE Ngono', meta: { tag: 'x' } });
    await people.insertOne({ _id: '2', name: 'Amadou', meta: [{ tag: 'y' }, { tag: 'z' }] });
    expect((await people.find({ name: { $contains: 'élodie' } })).map((p) => p._id)).toEqual(['1']);
    expect((await people.find({ name: { $contains: 'NGONO' } })).map((p) => p._id)).toEqual(['1']);
    expect((await people.find({ 'meta.tag': 'z' })).map((p) => p._id)).toEqual(['2']);
    expect((await people.find({ 'meta.tag': 'x' })).map((p) => p._id)).toEqual(['1']);
    await store.close();
  });

  it('still expires documents after a restart', async () => {
    const open = () => openEmbeddedStore({ dir: path.join(dir, 'ttl') });
    type Session = Doc & { expiresAt: Date };
    const first = await open();
    await first
      .collection<Session>('sessions')
      .ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
    await first.close();
    const second = await open();
    const sessions = second.collection<Session>('sessions');
    await sessions.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
    await sessions.insertOne({ _id: 'old', expiresAt: new Date(Date.now() - 1_000) });
    await sessions.insertOne({ _id: 'new', expiresAt: new Date(Date.now() + 60_000) });
    expect((await sessions.find({})).map((doc) => doc._id)).toEqual(['new']);
    await second.close();
  });

  it('commits concurrent writes together, a failing one undoing only itself', async () => {
    const store = await openEmbeddedStore({ dir: path.join(dir, 'group') });
    const orders = store.collection<Doc & { n: number }>('orders');
    const writes = Array.from({ length: 20 }, (_, i) => orders.insertOne({ _id: String(i % 15), n: i }));
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(5);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({
      reason: expect.any(DuplicateKeyError),
    });
    await store.close();
    const again = await openEmbeddedStore({ dir: path.join(dir, 'group') });
    expect(await again.collection('orders').count({})).toBe(15);
    await again.close();
  });

  it('rejects, and never leaves waiting, the writes of a group SQLite rolled back by itself', async () => {
    const db = new Database(path.join(dir, 'rolled-back.sqlite'));
    db.exec('CREATE TABLE t (v INTEGER)');
    const commits = groupCommits(db);
    const insert = (v: number) => () => db.prepare('INSERT INTO t VALUES (?)').run(v);
    const lost = commits.writeOne(insert(1));
    // What SQLite does on a full disk or an I/O error in the middle of a transaction.
    db.exec('ROLLBACK');
    const kept = commits.write(insert(2));
    await expect(lost).rejects.toThrow('rolled back by SQLite');
    await kept;
    const alone = commits.writeOne(insert(3));
    db.exec('ROLLBACK');
    await expect(alone).rejects.toThrow('rolled back by SQLite');
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual([2]);
    db.close();
  });

  it('finds a document by its unique field through that index, also beside a wider one', async () => {
    const store = await openEmbeddedStore({ dir: path.join(dir, 'planner') });
    type Payment = Doc & { token: string; projectId: string; livemode: boolean; createdAt: Date };
    const payments = store.collection<Payment>('payments');
    await payments.ensureIndex({ fields: { token: 1 }, unique: true });
    await payments.ensureIndex({ fields: { projectId: 1, livemode: 1, createdAt: -1 } });
    for (let i = 0; i < 50; i += 1)
      await payments.insertOne({
        _id: `p${i}`,
        token: `t${i}`,
        projectId: 'a',
        livemode: false,
        createdAt: new Date(),
      });
    expect(await payments.docsExamined({ token: 't7', projectId: 'a', livemode: false })).toBe(1);
    await expect(
      payments.insertOne({ _id: 'dup', token: 't7', projectId: 'a', livemode: false, createdAt: new Date() }),
    ).rejects.toBeInstanceOf(DuplicateKeyError);
    await store.close();
  });

  it('keeps only the documents a sparse index or a missing-field guard is about, also in a store written before', async () => {
    const folder = path.join(dir, 'partial');
    const indexesOf = () => {
      const db = new Database(path.join(folder, EMBEDDED_FILE), { readonly: true });
      try {
        return db
          .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'settlements'`)
          .all() as { name: string; sql: string | null }[];
      } finally {
        db.close();
      }
    };
    type Settlement = Doc & { providerId: string; key?: string; outcomeOf?: string };
    const specs = [
      { fields: { providerId: 1, key: 1 }, unique: true },
      { fields: { outcomeOf: 1 }, unique: true, sparse: true },
    ] as const;
    const first = await openEmbeddedStore({ dir: folder });
    const before = first.collection<Settlement>('settlements');
    for (const spec of specs) await before.ensureIndex(spec);
    await before.insertOne({ _id: 'a', providerId: 'p', key: 'k1', outcomeOf: 'o1' });
    await first.close();
    // As an earlier version left them: the sparse index whole, the missing-field guard on every row.
    const old = new Database(path.join(folder, EMBEDDED_FILE));
    for (const index of indexesOf()) {
      if (!index.sql) continue;
      old.exec(`DROP INDEX "${index.name}"`);
      const whole = index.sql.replace(/ WHERE .*$/, '');
      old.exec(whole.replace('"$ip_', '"$ix_').replace('"$un_', '"$ux_'));
    }
    old.close();

    const store = await openEmbeddedStore({ dir: folder });
    const settlements = store.collection<Settlement>('settlements');
    for (const spec of specs) await settlements.ensureIndex(spec);
    const names = indexesOf().map((index) => index.name);
    expect(names.filter((name) => /^\$(ix|ux)_/.test(name))).toEqual([]);
    expect(indexesOf().filter((index) => index.sql?.includes(' WHERE '))).toHaveLength(2);
    await settlements.insertOne({ _id: 'b', providerId: 'p', key: 'k2' });
    await settlements.insertOne({ _id: 'c', providerId: 'p' });
    await settlements.insertOne({ _id: 'd', providerId: 'p', key: 'k3', outcomeOf: 'o2' });
    await expect(settlements.insertOne({ _id: 'e', providerId: 'p' })).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    await expect(
      settlements.insertOne({ _id: 'f', providerId: 'p', key: 'k4', outcomeOf: 'o1' }),
    ).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await settlements.docsExamined({ outcomeOf: 'o2' })).toBe(1);
    expect(await settlements.docsExamined({ providerId: 'p', key: 'k2' })).toBe(1);
    await store.close();
  });

  type Outboxed = Doc & { status: string; _outbox?: { id: string }[]; _outboxPending?: number };
  const rawData = (dbFile: string, id: string) => {
    const db = new Database(dbFile, { readonly: true });
    try {
      return db.prepare(`SELECT json(data) FROM orders WHERE _id = ?`).pluck().get(`s:${id}`);
    } finally {
      db.close();
    }
  };

  it('marks an outbox event published without rewriting the document or its indexes', async () => {
    const folder = path.join(dir, 'side');
    const store = await openEmbeddedStore({ dir: folder });
    const orders = store.collection<Outboxed>('orders');
    await orders.ensureIndex({ fields: { status: 1 } });
    await orders.ensureIndex({ fields: { _outboxPending: 1 } });
    await orders.insertOne({
      _id: 'a',
      status: 'paid',
      _outbox: [{ id: 'e1' }, { id: 'e2' }],
      _outboxPending: 2,
    });
    await orders.insertOne({ _id: 'b', status: 'open' });
    await store.close();
    const before = rawData(path.join(folder, EMBEDDED_FILE), 'a');

    const again = await openEmbeddedStore({ dir: folder });
    const reopened = again.collection<Outboxed>('orders');
    const marked = await reopened.findOneAndUpdate(
      { _id: 'a', '_outbox.id': 'e1' },
      { $pull: { _outbox: { id: 'e1' } }, $inc: { _outboxPending: -1 } },
    );
    expect(marked).toEqual({ _id: 'a', status: 'paid', _outbox: [{ id: 'e2' }], _outboxPending: 1 });
    expect(
      await reopened.findOneAndUpdate({ _id: 'a', '_outbox.id': 'e1' }, { $inc: { _outboxPending: -1 } }),
    ).toBeNull();
    expect((await reopened.find({ _outboxPending: { $gt: 0 } })).map((doc) => doc._id)).toEqual(['a']);
    expect(await reopened.docsExamined({ _outboxPending: { $gt: 0 } })).toBe(1);
    expect((await reopened.find({ _outbox: { $exists: false } })).map((doc) => doc._id)).toEqual(['b']);
    // A state change and its events in one write, as the outbox writes them.
    const moved = await reopened.findOneAndUpdate(
      { _id: 'b', status: 'open' },
      {
        $set: { status: 'paid' },
        $push: { _outbox: { $each: [{ id: 'e3' }] } },
        $inc: { _outboxPending: 1 },
      },
    );
    expect(moved).toEqual({ _id: 'b', status: 'paid', _outbox: [{ id: 'e3' }], _outboxPending: 1 });
    expect((await reopened.find({ status: 'paid' }, { sort: { _id: 1 } })).map((doc) => doc._id)).toEqual([
      'a',
      'b',
    ]);
    await again.close();
    expect(rawData(path.join(folder, EMBEDDED_FILE), 'a')).toBe(before);
  });

  it('moves the outbox of a store written before the side column into it', async () => {
    const folder = path.join(dir, 'before-side');
    await mkdir(folder, { recursive: true });
    const old = new Database(path.join(folder, EMBEDDED_FILE));
    old.exec(`CREATE TABLE orders (_id TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL)`);
    old.exec(`CREATE INDEX "$ix_old" ON orders ((data ->> '$."_outboxPending"'))`);
    old.exec(`CREATE INDEX "$ix_status" ON orders ((data ->> '$."status"'))`);
    const insert = old.prepare(`INSERT INTO orders (_id, data) VALUES (?, jsonb(?))`);
    insert.run(
      's:a',
      JSON.stringify({ _id: 's:a', status: 's:paid', _outbox: [{ id: 's:e1' }], _outboxPending: 1 }),
    );
    insert.run('s:b', JSON.stringify({ _id: 's:b', status: 's:open' }));
    // More rows than the migration reads at a time, so pages after the first are moved too.
    const more = old.transaction(() => {
      for (let i = 0; i < 2_500; i += 1)
        insert.run(`s:c${i}`, JSON.stringify({ _id: `s:c${i}`, status: 's:paid', _outboxPending: 1 }));
    });
    more();
    old.close();

    const store = await openEmbeddedStore({ dir: folder });
    const orders = store.collection<Outboxed>('orders');
    await orders.ensureIndex({ fields: { _outboxPending: 1 } });
    expect(await orders.find({ _id: { $in: ['a', 'b'] } }, { sort: { _id: 1 } })).toEqual([
      { _id: 'a', status: 'paid', _outbox: [{ id: 'e1' }], _outboxPending: 1 },
      { _id: 'b', status: 'open' },
    ]);
    expect(await orders.findOne({ _id: 'c2499' })).toEqual({
      _id: 'c2499',
      status: 'paid',
      _outboxPending: 1,
    });
    expect(await orders.docsExamined({ _outboxPending: { $gt: 0 } })).toBe(2_501);
    expect(await orders.count({ status: 'open' })).toBe(1);
    await store.close();
    const db = new Database(path.join(folder, EMBEDDED_FILE), { readonly: true });
    const indexes = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL`,
      )
      .pluck()
      .all();
    db.close();
    expect(indexes).not.toContain('$ix_old');
    expect(indexes).toContain('$ix_status');
  });

  type Listed = Doc & { reference: string; phone?: string };
  const textSpec = { fields: { reference: 1, phone: 1 }, text: true } as const;

  /** The store in `folder` with payments searched by reference and phone, and a search by reference. */
  async function openSearched(folder: string) {
    const store = await openEmbeddedStore({ dir: path.join(dir, folder) });
    const payments = store.collection<Listed>('payments');
    await payments.ensureIndex(textSpec);
    const found = async (needle: string) =>
      (await payments.find({ reference: { $contains: needle } }, { sort: { _id: 1 } })).map((p) => p._id);
    return { store, payments, found, file: path.join(dir, folder, EMBEDDED_FILE) };
  }

  it('writes a text index a batch at a time, and a search finds every document written before it', async () => {
    const { store, payments, found, file } = await openSearched('text-queue');
    for (let i = 0; i < 500; i += 1)
      await payments.insertOne({ _id: `p${i}`, reference: `order-${i}`, phone: `+23769000${i}` });
    expect(await payments.count({ reference: { $contains: 'order-4' } })).toBe(111);
    await checkpoint(file);
    await payments.insertOne({ _id: 'new', reference: 'invoice-77' });
    // The document and its place in the queue; the trigram index wrote a segment of its own.
    expect(walPages(file)).toBeLessThanOrEqual(3);
    await payments.findOneAndUpdate({ _id: 'p7' }, { $set: { reference: 'renamed-7' } });
    await payments.deleteMany({ _id: 'p8' });
    expect(await found('invoice-7')).toEqual(['new']);
    expect(await found('renamed')).toEqual(['p7']);
    expect(await found('order-7')).toEqual([
      'p70',
      'p71',
      'p72',
      'p73',
      'p74',
      'p75',
      'p76',
      'p77',
      'p78',
      'p79',
    ]);
    expect(await found('order-8')).not.toContain('p8');
    await store.close();
  });

  it('indexes the documents it queued when nothing searches, and after a restart', async () => {
    const { store, payments, file } = await openSearched('text-queue-later');
    const queueLength = () => textQueueLength(file);
    await payments.insertOne({ _id: 'a', reference: 'first' });
    expect(queueLength()).toBe(1);
    await expect.poll(queueLength, { timeout: 2_000 }).toBe(0);
    await payments.insertOne({ _id: 'b', reference: 'second' });
    await store.close();
    expect(queueLength()).toBe(1);

    const again = await openSearched('text-queue-later');
    await expect.poll(queueLength, { timeout: 2_000 }).toBe(0);
    expect(await again.found('cond')).toEqual(['b']);
    await again.store.close();
  });

  it('keeps its queue for a later pass while another process holds the database past its timeout', async () => {
    const { store, payments, found, file } = await openSearched('text-queue-busy');
    await payments.insertOne({ _id: 'a', reference: 'queued while busy' });
    // The queue's pass comes while the lock is held, waits out the busy timeout and gives
    // up (thrown out of its timer, that would end the process); a later pass indexes it.
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    await new Promise((resolve) => setTimeout(resolve, 150));
    other.exec('COMMIT');
    other.close();
    expect(textQueueLength(file)).toBe(1);
    await expect.poll(() => textQueueLength(file), { timeout: 2_000 }).toBe(0);
    expect(await found('busy')).toEqual(['a']);
    await store.close();
  }, 20_000);

  it('keeps a text index right beside the triggers of a version that wrote it at once', async () => {
    const first = await openSearched('text-queue-before');
    await first.payments.insertOne({ _id: 'a', reference: 'alpha-one' });
    await first.store.close();
    const { file } = first;
    // An earlier version starts on this store: it makes its triggers again and writes.
    const earlier = new Database(file);
    const fts = earlier
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '$fts_%' AND sql LIKE '%fts5%'`,
      )
      .pluck()
      .get() as string;
    const values = (row: string) =>
      ['reference', 'phone']
        .map(
          (f) =>
            `CASE WHEN substr((${row}.data ->> '$."${f}"'), 1, 2) = 's:' THEN substr((${row}.data ->> '$."${f}"'), 3) END`,
        )
        .join(', ');
    earlier.exec(`
      CREATE TRIGGER "${fts}_insert" AFTER INSERT ON payments BEGIN
        INSERT INTO "${fts}" (rowid, c0, c1) VALUES (new.rowid, ${values('new')});
      END;
      CREATE TRIGGER "${fts}_update" AFTER UPDATE OF data ON payments BEGIN
        DELETE FROM "${fts}" WHERE rowid = old.rowid;
        INSERT INTO "${fts}" (rowid, c0, c1) VALUES (new.rowid, ${values('new')});
      END;
    `);
    earlier
      .prepare(`UPDATE payments SET data = jsonb(?) WHERE _id = 's:a'`)
      .run(JSON.stringify({ _id: 's:a', reference: 's:alpha-two' }));
    earlier
      .prepare(`INSERT INTO payments (_id, data) VALUES ('s:b', jsonb(?))`)
      .run(JSON.stringify({ _id: 's:b', reference: 's:beta-two' }));
    earlier.close();

    const { store, found } = await openSearched('text-queue-before');
    expect(await found('two')).toEqual(['a', 'b']);
    expect(await found('one')).toEqual([]);
    const matches = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare(`SELECT count(*) FROM "${fts}" WHERE "${fts}" MATCH '"two"'`).pluck().get();
      } finally {
        db.close();
      }
    };
    await store.close();
    // Each document once in the index, whichever triggers wrote it.
    expect(matches()).toBe(2);
  });

  it('refuses a page size or offset that is not a finite number, a bug of its caller', async () => {
    const store = await openEmbeddedStore({ dir: path.join(dir, 'pages') });
    const items = store.collection<Doc>('items');
    await items.insertOne({ _id: 'a' });
    await expect(items.find({}, { limit: Infinity })).rejects.toThrow(TypeError);
    await expect(items.find({}, { limit: 1, skip: Number.NaN })).rejects.toThrow(
      'limit and skip must be finite',
    );
    expect(await items.find({}, { limit: 2.7, skip: 0.2 })).toEqual([{ _id: 'a' }]);
    await store.close();
  });

  it('refuses collection names that are not plain file names', async () => {
    const store = await openEmbeddedStore({ dir: path.join(dir, 'names') });
    expect(() => store.collection('../escape')).toThrow(TypeError);
    await store.close();
    expect(() => store.collection('late')).toThrow('store is closed');
  });
});
