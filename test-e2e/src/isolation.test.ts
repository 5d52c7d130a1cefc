import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { startSystem, type ProjectKeys, type RunningSystem } from './support/system.js';
import { api, startWebhookReceiver } from './support/http.js';

/**
 * One project's objects of every kind, in sandbox, against two strangers: another project's
 * secret key and the same project's live key. Every read, list and change by id is 404 or
 * leaves the object out, never 403 (that would confirm it exists), and changes nothing.
 */
let system: RunningSystem;
let owner: ProjectKeys;
let stranger: ProjectKeys;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const ids = {
  token: '',
  linkId: '',
  endpointId: '',
  deliveryId: '',
  customerId: 'cust-isolated-1',
  userId: '3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b',
};

beforeAll(async () => {
  system = await startSystem();
  owner = await system.createProject('Owner');
  stranger = await system.createProject('Stranger');
  receiver = await startWebhookReceiver();
  const merchant = api(system.baseUrl, owner.testSecretKey);
  const endpoint = await merchant<{ id: string }>('POST', '/v1/webhook-endpoints', {
    url: receiver.url,
    enabledEvents: ['*'],
  });
  ids.endpointId = endpoint.body.id;
  const payment = await merchant<{ token: string }>('POST', '/v1/payments', {
    amount: 1000,
    customerId: ids.customerId,
    customer: { name: 'Awa Diallo', email: 'awa@example.com' },
    userId: ids.userId,
  });
  ids.token = payment.body.token;
  expect((await merchant('POST', `/v1/payments/${ids.token}/cancel`)).status).toBe(200);
  const link = await merchant<{ id: string }>('POST', '/v1/payment-links', {
    name: 'Isolated',
    amount: 1500,
  });
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  ids.linkId = link.body.id;
  ids.deliveryId = await eventually(async () => {
    const deliveries = await merchant<{ data: { id: string }[] }>(
      'GET',
      `/v1/webhook-endpoints/${ids.endpointId}/deliveries`,
    );
    return deliveries.body.data[0]?.id;
  });
  await eventually(
    async () =>
      (await merchant('GET', `/v1/projects/${owner.id}/customers/${ids.customerId}`)).status === 200,
  );
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await system?.stop();
});

const byId = () =>
  [
    ['GET', `/v1/payments/${ids.token}`],
    ['GET', `/v1/payments/${ids.token}/verify`],
    ['POST', `/v1/payments/${ids.token}/cancel`],
    ['GET', `/v1/payment-links/${ids.linkId}`],
    ['PATCH', `/v1/payment-links/${ids.linkId}`, { name: 'Taken over' }],
    ['DELETE', `/v1/payment-links/${ids.linkId}`],
    ['GET', `/v1/webhook-endpoints/${ids.endpointId}`],
    ['PATCH', `/v1/webhook-endpoints/${ids.endpointId}`, { url: 'https://attacker.example/hook' }],
    ['POST', `/v1/webhook-endpoints/${ids.endpointId}/roll-secret`],
    ['GET', `/v1/webhook-endpoints/${ids.endpointId}/deliveries`],
    ['POST', `/v1/webhook-endpoints/${ids.endpointId}/deliveries/${ids.deliveryId}/redeliver`],
    ['DELETE', `/v1/webhook-endpoints/${ids.endpointId}`],
    ['GET', `/v1/projects/${owner.id}/customers`],
    ['GET', `/v1/projects/${owner.id}/customers/stats`],
    ['GET', `/v1/projects/${owner.id}/customers/${ids.customerId}`],
    ['GET', `/v1/projects/${owner.id}/customers/${ids.customerId}/transactions`],
  ] as const;

describe('isolation between projects and environments', () => {
  it.each([
    ['another project’s secret key', () => stranger.testSecretKey],
    ['the same project’s live key', () => owner.liveSecretKey],
  ])('answers 404 to %s on every object by id', async (_who, key) => {
    const call = api(system.baseUrl, key());
    const leaks: string[] = [];
    for (const [method, path, body] of byId()) {
      const response = await call(method, path, body);
      const customersOfOwnerProject = path.startsWith(`/v1/projects/${owner.id}/customers`);
      // The live key of the owner sees its own project's (empty) live customers.
      const allowedEmpty =
        customersOfOwnerProject && key() === owner.liveSecretKey && !path.includes(ids.customerId);
      if (allowedEmpty) {
        expect(response.status, path).toBe(200);
        expect(JSON.stringify(response.body)).not.toContain(ids.customerId);
        // Counts leak what ids do not: live has no customers at all.
        if (path.endsWith('/stats')) expect(response.body).toMatchObject({ totalCustomers: 0 });
        else expect(response.body).toMatchObject({ data: [], meta: { total: 0 } });
        continue;
      }
      if (response.status !== 404) leaks.push(`${method} ${path} -> ${response.status}`);
    }
    expect(leaks).toEqual([]);
  });

  it.each([
    ['another project’s secret key', () => stranger.testSecretKey],
    ['the same project’s live key', () => owner.liveSecretKey],
  ])('leaves the objects out of every list for %s', async (_who, key) => {
    const call = api(system.baseUrl, key());
    for (const path of [
      '/v1/payments',
      `/v1/payments/user/${ids.userId}`,
      '/v1/payment-links',
      '/v1/webhook-endpoints',
    ]) {
      const response = await call('GET', path);
      expect(response.status, path).toBe(200);
      const text = JSON.stringify(response.body);
      for (const id of [ids.token, ids.linkId, ids.endpointId]) expect(text, path).not.toContain(id);
    }
  });

  it('changed nothing the owner can see', async () => {
    const merchant = api(system.baseUrl, owner.testSecretKey);
    expect((await merchant<{ name: string }>('GET', `/v1/payment-links/${ids.linkId}`)).body.name).toBe(
      'Isolated',
    );
    expect((await merchant<{ url: string }>('GET', `/v1/webhook-endpoints/${ids.endpointId}`)).body.url).toBe(
      receiver.url,
    );
    expect((await merchant<{ status: string }>('GET', `/v1/payments/${ids.token}`)).body.status).toBe(
      'CANCELLED',
    );
  });
});
