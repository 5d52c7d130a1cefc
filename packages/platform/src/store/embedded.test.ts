import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeStoreContract } from './contract.js';
import { openEmbeddedStore } from './embedded.js';
import { openStore } from './open.js';
import type { Doc } from './port.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'mmp-store-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describeStoreContract('embedded', () => openEmbeddedStore({ dir: path.join(dir, 'contract') }));

describe('embedded store', () => {
  it('keeps one datafile per collection under the service directory', async () => {
    const store = await openStore({ dataDir: dir, service: 'svc' });
    expect(store.kind).toBe('embedded');
    await store.collection('payments').insertOne({ _id: '1' });
    await store.close();
    expect(existsSync(path.join(dir, 'svc', 'payments.db'))).toBe(true);
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

  it('refuses collection names that are not plain file names', async () => {
    const store = await openEmbeddedStore({ dir: path.join(dir, 'names') });
    expect(() => store.collection('../escape')).toThrow(TypeError);
    await store.close();
    expect(() => store.collection('late')).toThrow('store is closed');
  });
});
