import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  connectNats,
  createEventPublisher,
  createLogger,
  createOutbox,
  openStore,
  provisionEventsStream,
  type NatsConnection,
  type Store,
} from '@mmp/platform';
import { createTestSystem, TEST_NATS_URL } from '@mmp/platform/testing';
import { projectEvents } from '@mmp/protocol';
import { createAccounts, type Accounts } from '../src/handlers/accounts.js';
import { openAccountsStore, projectsCollection, type AccountsStore } from '../src/store/accounts.js';

const system = createTestSystem('gwaccounts');
const log = createLogger({ service: 'gateway', level: 'silent' });
let nc: NatsConnection;
let store: Store;
let keys: AccountsStore;
let accounts: Accounts;

beforeAll(async () => {
  nc = await connectNats({ url: TEST_NATS_URL, name: 'test', log });
  await provisionEventsStream(nc, system.naming);
  store = await openStore({ dataDir: system.dataDir, service: 'gateway' });
  const outbox = createOutbox({
    publish: createEventPublisher(nc, system.naming, {
      service: 'gateway',
      types: new Set([projectEvents.updated.type]),
    }),
    log,
    collections: [projectsCollection(store)],
  });
  keys = await openAccountsStore(store, outbox);
  accounts = createAccounts(keys, 'test-server-key-0123456789abcdef');
});

afterAll(async () => {
  await store?.close();
  await nc?.close();
  await system.cleanup();
});

describe('creating a project', () => {
  it('stores no project when one of its keys could not be stored', async () => {
    let stored = 0;
    const failing = createAccounts(
      {
        ...keys,
        async insertApiKey(doc) {
          // The process dies (or the store fails) after two of the four keys.
          if (++stored > 2) throw new Error('store lost');
          await keys.insertApiKey(doc);
        },
      },
      'test-server-key-0123456789abcdef',
    );
    await expect(failing.createProject({ id: 'prj_half', name: 'Half' })).rejects.toThrow('store lost');
    expect(await keys.findProject('prj_half')).toBeNull();
    // Nothing stands in the way of creating it again.
    const project = await accounts.createProject({ id: 'prj_half', name: 'Half' });
    expect(project.keys).toHaveLength(4);
  });
});

describe('rolling a key', () => {
  it('drops a scope its kind may no longer hold instead of failing after the old key is revoked', async () => {
    const project = await accounts.createProject({ name: 'Legacy' });
    // A publishable key issued while payment_links:read was still publishable-safe.
    await keys.insertApiKey({
      _id: 'key_legacy',
      projectId: project.id,
      kind: 'publishable',
      livemode: false,
      scopes: ['checkout_sessions:read', 'payment_links:read'],
      hash: 'legacy-hash',
      hint: 'svc_test_pk_…abcd',
      createdAt: new Date(),
      expiresAt: null,
      revokedAt: null,
    });

    const rolled = await accounts.rollKey(project.id, 'key_legacy');
    expect(rolled).toMatchObject({
      kind: 'publishable',
      livemode: false,
      scopes: ['checkout_sessions:read'],
    });
    expect(rolled.key).toMatch(/^svc_test_pk_/);
    expect((await keys.findApiKey(project.id, 'key_legacy'))?.revokedAt).toBeInstanceOf(Date);
  });

  it('lets exactly one of two concurrent rolls win, and leaves exactly one working key', async () => {
    const project = await accounts.createProject({ name: 'Racing' });
    const secret = project.keys.find((k) => k.kind === 'secret' && !k.livemode)!;
    const results = await Promise.allSettled([
      accounts.rollKey(project.id, secret.id),
      accounts.rollKey(project.id, secret.id),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({
      reason: { code: 'invalid_state', status: 409 },
    });
    const working = await Promise.allSettled(
      [secret.key, ...results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.key] : []))].map((token) =>
        accounts.authenticateMerchant(token),
      ),
    );
    expect(working.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    const live = (await keys.listApiKeys(project.id)).filter(
      (k) => k.kind === 'secret' && !k.livemode && !k.revokedAt,
    );
    expect(live).toHaveLength(1);
  });

  it('lets exactly one of concurrent provider key rolls win, never leaving the provider without a key', async () => {
    const first = await accounts.issueProviderKey('prv_racing');
    const results = await Promise.allSettled(
      Array.from({ length: 3 }, () => accounts.rollProviderKey('prv_racing')),
    );
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => r.reason)).toEqual([
      expect.objectContaining({ code: 'invalid_state' }),
      expect.objectContaining({ code: 'invalid_state' }),
    ]);
    await expect(accounts.authenticateProvider(won[0]!)).resolves.toMatchObject({ providerId: 'prv_racing' });
    await expect(accounts.authenticateProvider(first)).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(await keys.activeProviderKeyIds('prv_racing')).toHaveLength(1);
  });

  it('rolls a provider key to one working key', async () => {
    const first = await accounts.issueProviderKey('prv_roll');
    const second = await accounts.rollProviderKey('prv_roll');
    await expect(accounts.authenticateProvider(first)).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(accounts.authenticateProvider(second)).resolves.toMatchObject({ providerId: 'prv_roll' });
  });
});

describe('the credentials cache', () => {
  it('does not keep a key read before a revocation that finished while the read was under way', async () => {
    let holdRead: (() => void) | undefined;
    const cached = createAccounts(
      {
        ...keys,
        async findApiKeyByHash(hash) {
          const found = await keys.findApiKeyByHash(hash);
          // The read has its answer, but the revocation lands before the read returns.
          if (holdRead === undefined) await new Promise<void>((resolve) => (holdRead = resolve));
          return found;
        },
      },
      'test-server-key-0123456789abcdef',
      { credentialsCacheMs: 60_000 },
    );
    const project = await cached.createProject({ name: 'Racing' });
    const key = project.keys.find((k) => k.kind === 'secret' && !k.livemode)!;
    const racing = cached.authenticateMerchant(key.key);
    await vi.waitFor(() => expect(holdRead).toBeDefined());
    await cached.revokeKey(project.id, key.id);
    holdRead!();
    // That request began before the revocation and may pass; the next must not.
    await racing;
    await expect(cached.authenticateMerchant(key.key)).rejects.toMatchObject({ code: 'invalid_api_key' });
  });
});
