import { describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { api } from '../support/http.js';
import { expectEnvelopeError } from './helpers.js';

type Endpoint = {
  id: string;
  url: string;
  description: string | null;
  enabledEvents: string[];
  livemode: boolean;
  status: string;
  secretHint?: string;
  createdAt: string;
  secret?: string;
};

const shop = useShop('Hooks Shop');
const { merchant } = shop;

const createEndpoint = async (body: Record<string, unknown>, call = merchant) => {
  const created = await call<Endpoint>('POST', '/v1/webhook-endpoints', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
};

/** 404 in the envelope form: an endpoint of another project, deleted, or never there. */
const expectNotFound = (response: { status: number; body: unknown }) =>
  expectEnvelopeError(response, 404, 'resource_not_found');

describe('POST /v1/webhook-endpoints', () => {
  it('answers 201 with the whsec_ secret shown once, and list never shows it', async () => {
    const created = await createEndpoint({ url: 'http://127.0.0.1:9/hooks', description: 'Main' });
    expect(Object.keys(created).sort()).toEqual(
      [
        'createdAt',
        'description',
        'enabledEvents',
        'id',
        'livemode',
        'secret',
        'secretHint',
        'status',
        'url',
      ].sort(),
    );
    expect(created).toMatchObject({
      url: 'http://127.0.0.1:9/hooks',
      description: 'Main',
      enabledEvents: ['*'],
      livemode: false,
      status: 'enabled',
    });
    expect(created.secret).toMatch(/^whsec_.{16,}/);
    expect(created.secretHint).toBe(`whsec_…${created.secret!.slice(-4)}`);

    const listed = await merchant<{ data: Endpoint[]; has_more: boolean }>('GET', '/v1/webhook-endpoints');
    expect(listed.status).toBe(200);
    expect(listed.body.has_more).toBe(false);
    const mine = listed.body.data.find((e) => e.id === created.id)!;
    const { secret, ...withoutSecret } = created;
    expect(mine).toEqual(withoutSecret);
    expect(JSON.stringify(listed.body)).not.toContain(secret!.slice(6));
    const retrieved = await merchant<Endpoint>('GET', `/v1/webhook-endpoints/${created.id}`);
    expect(retrieved).toMatchObject({ status: 200, body: withoutSecret });
    expectNotFound(await merchant('GET', '/v1/webhook-endpoints/00000000-0000-4000-8000-000000000000'));
  });

  it('keeps endpoints per project and environment', async () => {
    const created = await createEndpoint({
      url: 'http://127.0.0.1:9/env',
      enabledEvents: ['transaction.completed'],
    });
    const live = await api(shop.system.baseUrl, shop.project.liveSecretKey)<{ data: Endpoint[] }>(
      'GET',
      '/v1/webhook-endpoints',
    );
    expect(live.body.data.map((e) => e.id)).not.toContain(created.id);
    const other = await shop.system.createProject('Other Hooks');
    const nosy = api(shop.system.baseUrl, other.testSecretKey);
    expect((await nosy<{ data: Endpoint[] }>('GET', '/v1/webhook-endpoints')).body.data).toEqual([]);
    expectNotFound(await nosy('PATCH', `/v1/webhook-endpoints/${created.id}`, { description: 'mine' }));
    expectNotFound(await nosy('POST', `/v1/webhook-endpoints/${created.id}/roll-secret`));
    expectNotFound(await nosy('DELETE', `/v1/webhook-endpoints/${created.id}`));
    expectNotFound(await nosy('GET', `/v1/webhook-endpoints/${created.id}/deliveries`));
  });

  it('refuses bad bodies in the envelope form, naming the field', async () => {
    for (const body of [
      {},
      { url: 'not a url' },
      { url: 'ftp://127.0.0.1/x' },
      { url: 'http://127.0.0.1:9/x', enabledEvents: ['transaction.teleported'] },
      { url: 'http://127.0.0.1:9/x', enabledEvents: [] },
      { url: 'http://127.0.0.1:9/x', enabledEvents: ['*', 'transaction.completed'] },
      { url: 'http://127.0.0.1:9/x', colour: 'red' },
    ]) {
      const response = await merchant<{ error: { errors?: { field: string }[] } }>(
        'POST',
        '/v1/webhook-endpoints',
        body,
      );
      expectEnvelopeError(response, 400, 'validation_error');
    }
  });

  it('requires https and a public address, for live and test endpoints alike', async () => {
    const live = api(shop.system.baseUrl, shop.project.liveSecretKey);
    for (const call of [live, merchant]) {
      for (const url of [
        'http://shop.example/hook',
        'https://10.0.0.1/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://192.168.1.1/hook',
      ]) {
        expectEnvelopeError(await call('POST', '/v1/webhook-endpoints', { url }), 400, 'validation_error');
      }
    }
  });
});

describe('PATCH, roll-secret and DELETE /v1/webhook-endpoints/{id}', () => {
  it('updates the url, description, events and status', async () => {
    const created = await createEndpoint({ url: 'http://127.0.0.1:9/a' });
    const updated = await merchant<Endpoint>('PATCH', `/v1/webhook-endpoints/${created.id}`, {
      url: 'http://127.0.0.1:9/b',
      description: 'Renamed',
      enabledEvents: ['transaction.completed', 'transaction.failed'],
      status: 'disabled',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: created.id,
      url: 'http://127.0.0.1:9/b',
      description: 'Renamed',
      enabledEvents: ['transaction.completed', 'transaction.failed'],
      status: 'disabled',
      secretHint: created.secretHint,
    });
    expect(updated.body).not.toHaveProperty('secret');
    const cleared = await merchant<Endpoint>('PATCH', `/v1/webhook-endpoints/${created.id}`, {
      description: null,
      status: 'enabled',
    });
    expect(cleared.body).toMatchObject({ description: null, status: 'enabled', url: 'http://127.0.0.1:9/b' });
  });

  it('refuses an empty or invalid update and an unknown endpoint', async () => {
    const created = await createEndpoint({ url: 'http://127.0.0.1:9/c' });
    const path = `/v1/webhook-endpoints/${created.id}`;
    expectEnvelopeError(await merchant('PATCH', path, {}), 400, 'validation_error');
    expectEnvelopeError(await merchant('PATCH', path, { status: 'paused' }), 400, 'validation_error');
    expectEnvelopeError(await merchant('PATCH', path, { url: 'nope' }), 400, 'validation_error');
    expectEnvelopeError(await merchant('PATCH', path, { secret: 'whsec_mine' }), 400, 'validation_error');
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectNotFound(await merchant('PATCH', `/v1/webhook-endpoints/${unknown}`, { status: 'disabled' }));
  });

  it('rolls the secret: a new whsec_ shown once, a new hint', async () => {
    const created = await createEndpoint({ url: 'http://127.0.0.1:9/roll' });
    const rolled = await merchant<Endpoint>('POST', `/v1/webhook-endpoints/${created.id}/roll-secret`);
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(created.secret);
    expect(rolled.body.secretHint).toBe(`whsec_…${rolled.body.secret!.slice(-4)}`);
    const listed = await merchant<{ data: Endpoint[] }>('GET', '/v1/webhook-endpoints');
    expect(listed.body.data.find((e) => e.id === created.id)).toEqual({ ...rolled.body, secret: undefined });
    expect(JSON.stringify(listed.body)).not.toContain(rolled.body.secret!.slice(6));
  });

  it('deletes an endpoint for good', async () => {
    const created = await createEndpoint({ url: 'http://127.0.0.1:9/gone' });
    const deleted = await merchant('DELETE', `/v1/webhook-endpoints/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.id, deleted: true });
    const listed = await merchant<{ data: Endpoint[] }>('GET', '/v1/webhook-endpoints');
    expect(listed.body.data.map((e) => e.id)).not.toContain(created.id);
    expectNotFound(await merchant('DELETE', `/v1/webhook-endpoints/${created.id}`));
    expectNotFound(await merchant('GET', `/v1/webhook-endpoints/${created.id}/deliveries`));
  });

  it('answers 404 for an id that is not a uuid', async () => {
    expectNotFound(await merchant('PATCH', '/v1/webhook-endpoints/not-a-uuid', { status: 'disabled' }));
  });
});

describe('authentication on webhook-endpoint routes', () => {
  it('answers 401 invalid_api_key and 403 insufficient_permissions in the envelope form', async () => {
    expectEnvelopeError(
      await api(shop.system.baseUrl)('GET', '/v1/webhook-endpoints'),
      401,
      'invalid_api_key',
    );
    const bogus = api(shop.system.baseUrl, shop.project.testSecretKey.slice(0, -4) + 'zzzz');
    expectEnvelopeError(
      await bogus('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/x' }),
      401,
      'invalid_api_key',
    );
    const publishable = api(shop.system.baseUrl, shop.project.testPublishableKey);
    expectEnvelopeError(await publishable('GET', '/v1/webhook-endpoints'), 403, 'insufficient_permissions');
    expectEnvelopeError(
      await publishable('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/x' }),
      403,
      'insufficient_permissions',
    );
  });
});
