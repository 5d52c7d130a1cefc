import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeStoreContract } from '../testing/store-contract/index.js';
import { EMBEDDED_FILE, openEmbeddedStore } from './embedded.js';
import { openStore } from './open.js';
import { DuplicateKeyError, type Doc } from './port.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'mmp-store-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describeStoreContract('embedded', () => openEmbeddedStore({ dir: path.join(dir, 'contract') }));

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

  it('refuses collection names that are not plain file names', async () => {
    const store = await openEmbeddedStore({ dir: path.join(dir, 'names') });
    expect(() => store.collection('../escape')).toThrow(TypeError);
    await store.close();
    expect(() => store.collection('late')).toThrow('store is closed');
  });
});
