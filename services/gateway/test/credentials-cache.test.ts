import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edgeRoutes, useEdgeGateway } from './fixtures/edge.js';
import { expectSimpleError, startTestGateway, type TestGateway } from './fixtures/gateway.js';

/**
 * The gateway believes a key it found valid for a few seconds instead of reading it on every
 * request. A change made on one replica (revoke, roll, suspend, a provider key rolled) must
 * still refuse the old credential on the very next request to any replica: the replica that
 * made the change tells the others, and this test gives the other replica a cache far longer
 * than the test, so only that notice can make it refuse.
 */
const edge = useEdgeGateway('gwcreds');
const replicas: TestGateway[] = [];

/** Another replica of the same deployment: same NATS prefix, same database. */
async function startReplica(cacheMs: number): Promise<TestGateway> {
  const replica = await startTestGateway({
    routes: edgeRoutes,
    system: edge.gw.system,
    store: edge.gw.running.context.store,
    env: { CREDENTIALS_CACHE_MS: String(cacheMs) },
  });
  replicas.push(replica);
  return replica;
}

const listPayments = (gateway: TestGateway, token: string) => gateway.http('GET', '/v1/payments', { token });
const createKey = () =>
  edge.gw.admin('POST', `/v1/admin/projects/${edge.shop.id}/keys`, { kind: 'secret', livemode: false });
const eventually = async (check: () => Promise<boolean>) => {
  const until = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('not within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

let other: TestGateway;
beforeAll(async () => {
  other = await startReplica(60_000);
});
afterAll(async () => {
  for (const replica of replicas) await replica.stop({ keep: true });
});

describe('credentials cached by a gateway replica', () => {
  it('are refused on the other replica once one revokes the key', async () => {
    const key = (await createKey()).json;
    expect((await listPayments(other, key.key)).status).toBe(200);
    await edge.gw.admin('POST', `/v1/admin/projects/${edge.shop.id}/keys/${key.id}/revoke`);
    expect((await listPayments(edge.gw, key.key)).status).toBe(401);
    await eventually(async () => (await listPayments(other, key.key)).status === 401);
    expectSimpleError(await listPayments(other, key.key), 401, 'invalid_api_key');
  });

  it('are refused on the other replica once one rolls the key, and the new key works there', async () => {
    const key = (await createKey()).json;
    expect((await listPayments(other, key.key)).status).toBe(200);
    const rolled = await edge.gw.admin('POST', `/v1/admin/projects/${edge.shop.id}/keys/${key.id}/roll`);
    expect(rolled.status).toBe(201);
    await eventually(async () => (await listPayments(other, key.key)).status === 401);
    expect((await listPayments(other, rolled.json.key)).status).toBe(200);
  });

  it('answer service_suspended on the other replica once one suspends the project, and work after resume', async () => {
    const project = await edge.gw.createProject('Suspended later');
    const token = project.testSecret.key;
    expect((await listPayments(other, token)).status).toBe(200);
    await edge.gw.admin('POST', `/v1/admin/projects/${project.id}/suspend`);
    await eventually(async () => (await listPayments(other, token)).status === 403);
    expectSimpleError(await listPayments(other, token), 403, 'service_suspended');
    await edge.gw.admin('POST', `/v1/admin/projects/${project.id}/resume`);
    await eventually(async () => (await listPayments(other, token)).status === 200);
  });

  it('are refused on the other replica once one rolls a provider key', async () => {
    const provider = (await edge.gw.admin('POST', '/v1/admin/providers', { name: 'Rail Co' })).json;
    const rails = (gateway: TestGateway, token: string) =>
      gateway.http('GET', '/v1/provider/rails', { token });
    expect((await rails(other, provider.apiKey)).status).toBe(200);
    const rolled = await edge.gw.admin('POST', `/v1/admin/providers/${provider.id}/keys/roll`);
    expect(rolled.status).toBe(201);
    await eventually(async () => (await rails(other, provider.apiKey)).status === 401);
    expect((await rails(other, rolled.json.apiKey)).status).toBe(200);
  });

  it('are believed no longer than CREDENTIALS_CACHE_MS when no replica tells of the change', async () => {
    const shortLived = await startReplica(300);
    const key = (await createKey()).json;
    expect((await listPayments(shortLived, key.key)).status).toBe(200);
    // Revoked behind every replica's back, as a lost notice would leave it.
    await edge.gw.running.context.store
      .collection('api_keys')
      .findOneAndUpdate({ _id: key.id }, { $set: { revokedAt: new Date() } });
    const revokedAt = Date.now();
    await eventually(async () => (await listPayments(shortLived, key.key)).status === 401);
    expect(Date.now() - revokedAt).toBeLessThan(2_000);
  });

  it('still refuse an expired key at its instant, however long they are cached', async () => {
    const expiresAt = new Date(Date.now() + 800).toISOString();
    const key = (
      await edge.gw.admin('POST', `/v1/admin/projects/${edge.shop.id}/keys`, {
        kind: 'secret',
        livemode: false,
        expiresAt,
      })
    ).json;
    expect((await listPayments(other, key.key)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expectSimpleError(await listPayments(other, key.key), 401, 'expired_api_key');
  });
});
