import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type OutboxFields, type Store } from '@mmp/platform';
import { createTestSystem } from '@mmp/platform/testing';
import { OPERATION_CONTRACTS } from '@mmp/protocol';
import type { ProjectDoc } from '../src/store/accounts.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';

/**
 * What payers see of a merchant (name, display name, logo) leaves the gateway by
 * `project.updated`, written with the project itself; no service calls the gateway for it.
 */
const system = createTestSystem('gwprojects');
let store: Store;
let gw: TestGateway;

/** A project stored before project.updated existed: no announcement was ever written. */
const legacy: ProjectDoc = {
  _id: '7d1f0c4e-2b7a-4c1e-9a3b-5e6f7a8b9c0d',
  name: 'Old Shop',
  displayName: 'The Old Shop',
  logoUrl: 'https://old.example/logo.png',
  createdAt: new Date('2025-06-01T00:00:00Z'),
};

const start = () => startTestGateway({ routes: [], system, store });
const announcementsOf = async (projectId: string) =>
  (await gw.projectAnnouncements()).filter((data) => data.project.id === projectId);

beforeAll(async () => {
  store = await openStore({ dataDir: system.dataDir, service: 'gateway' });
  await store.collection<ProjectDoc>('projects').insertOne(legacy);
  gw = await start();
});

afterAll(async () => {
  await gw?.stop({ keep: true });
  await store?.close();
  await system.cleanup();
});

describe('project.updated', () => {
  it('is published with a new project, carrying what payers see of it', async () => {
    const created = await gw.admin('POST', '/v1/admin/projects', {
      name: 'New Shop',
      displayName: 'New Shop Ltd',
      logoUrl: 'https://new.example/logo.png',
    });
    expect(created.status).toBe(201);
    expect(await announcementsOf(created.json.id)).toEqual([
      {
        project: {
          id: created.json.id,
          name: 'New Shop',
          displayName: 'New Shop Ltd',
          logoUrl: 'https://new.example/logo.png',
        },
      },
    ]);
  });

  it('announces, at start, a project stored before the event existed', async () => {
    expect(await announcementsOf(legacy._id)).toEqual([
      {
        project: {
          id: legacy._id,
          name: 'Old Shop',
          displayName: 'The Old Shop',
          logoUrl: 'https://old.example/logo.png',
        },
      },
    ]);
  });

  it('announces each project once: a restart publishes nothing again', async () => {
    const before = await gw.projectAnnouncements();
    await gw.stop({ keep: true });
    gw = await start();
    expect(await gw.projectAnnouncements()).toHaveLength(before.length);
    const stored = await store.collection<ProjectDoc & OutboxFields>('projects').find({});
    expect(stored.map((project) => project._outboxPending)).toEqual(stored.map(() => 0));
  });

  it('leaves the gateway with no operation for other services to call', () => {
    const served = OPERATION_CONTRACTS.filter((contract) => contract.service === 'gateway');
    expect(served.map((contract) => contract.name)).toEqual(['ping']);
  });
});
