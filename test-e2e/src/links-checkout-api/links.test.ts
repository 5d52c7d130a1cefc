import { describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { api } from '../support/http.js';
import {
  createLink,
  expectLinkRefusal,
  expectSimpleError,
  startLink,
  type Link,
  type Session,
} from './helpers.js';

const shop = useShop('Links Shop');
const { merchant, shopper } = shop;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('merchant CRUD on /v1/payment-links', () => {
  it('creates (201), reads (200), lists (200), updates (200) and deletes (200) a link', async () => {
    const link = await createLink(merchant, { name: 'T-shirt', amount: 7500, maxUses: 3 });
    expect(link).toMatchObject({
      name: 'T-shirt',
      amount: 7500,
      currency: 'XAF',
      status: 'ACTIVE',
      maxUses: 3,
      usageCount: 0,
      url: `${shop.system.baseUrl}/pay/${link.shortCode}`,
    });
    expect(link.shortCode).toMatch(/^[A-Za-z0-9]{8}$/);

    const read = await merchant<Link>('GET', `/v1/payment-links/${link.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(link);

    const list = await merchant<{ data: Link[]; has_more: boolean; meta: unknown }>(
      'GET',
      '/v1/payment-links?limit=100',
    );
    expect(list.status).toBe(200);
    expect(list.body.data.map((l) => l.id)).toContain(link.id);

    const updated = await merchant<Link>('PATCH', `/v1/payment-links/${link.id}`, {
      name: 'Polo',
      status: 'INACTIVE',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: link.id, name: 'Polo', status: 'INACTIVE' });

    const deleted = await merchant('DELETE', `/v1/payment-links/${link.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: link.id, deleted: true });
  });

  it('answers 400 with the specification codes for bad input', async () => {
    expectSimpleError(
      await merchant('POST', '/v1/payment-links', { amount: 1000 }),
      400,
      'missing_required_field',
    );
    expectSimpleError(
      await merchant('POST', '/v1/payment-links', { name: 'x', amount: 50 }),
      400,
      'invalid_amount',
    );
    expectSimpleError(
      await merchant('POST', '/v1/payment-links', { name: 'x', amount: 500, currency: 'USD' }),
      400,
      'invalid_currency',
    );
    expectSimpleError(
      await merchant('POST', '/v1/payment-links', '"a string"', { 'content-type': 'application/json' }),
      400,
      'invalid_request',
    );
    const raw = await fetch(`${shop.system.baseUrl}/v1/payment-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.project.testSecretKey}`, 'content-type': 'application/json' },
      body: '{"name":',
    });
    const rawBody = { status: raw.status, body: await raw.json(), headers: raw.headers };
    expectSimpleError(rawBody, 400, 'invalid_request');
  });

  it('answers 400 invalid_request naming a bad or unknown list parameter', async () => {
    for (const query of ['limit=0', 'limit=101', 'page=0', 'status=DONE', 'colour=red']) {
      const body = expectSimpleError(
        await merchant('GET', `/v1/payment-links?${query}`),
        400,
        'invalid_request',
      );
      const name = query.split('=')[0];
      expect(body.errors, query).toEqual([expect.objectContaining({ field: name })]);
    }
  });

  it('answers 400 validation_error listing inconsistent or unknown fields', async () => {
    const both = expectSimpleError(
      await merchant('POST', '/v1/payment-links', { name: 'x', amount: 500, minAmount: 100 }),
      400,
      'validation_error',
    );
    expect(both.errors).toEqual([expect.objectContaining({ field: 'minAmount' })]);
    const unknown = expectSimpleError(
      await merchant('POST', '/v1/payment-links', { name: 'x', amount: 500, colour: 'red' }),
      400,
      'validation_error',
    );
    expect(unknown.errors).toEqual([{ field: 'colour', message: 'unknown field' }]);

    const link = await createLink(merchant, { name: 'Var', minAmount: 500, maxAmount: 900 });
    for (const body of [
      {},
      { status: 'EXPIRED' },
      { minAmount: 1000 },
      { bogus: true },
      { expiresAt: '2001-01-01T00:00:00Z' },
    ]) {
      const refused = expectSimpleError(
        await merchant('PATCH', `/v1/payment-links/${link.id}`, body),
        400,
        'validation_error',
      );
      expect(refused.errors, JSON.stringify(body)).toEqual(expect.any(Array));
    }
    expectSimpleError(
      await merchant('PATCH', `/v1/payment-links/${link.id}`, { amount: 10 }),
      400,
      'invalid_amount',
    );
  });

  it('answers 401 without a key or with an unknown one, 403 to publishable and unscoped keys', async () => {
    const link = await createLink(merchant, { name: 'Guarded', amount: 1000 });
    const routes: [string, string, unknown?][] = [
      ['POST', '/v1/payment-links', { name: 'x', amount: 1000 }],
      ['GET', '/v1/payment-links'],
      ['GET', `/v1/payment-links/${link.id}`],
      ['PATCH', `/v1/payment-links/${link.id}`, { name: 'y' }],
      ['DELETE', `/v1/payment-links/${link.id}`],
    ];
    const unknownKey = api(shop.system.baseUrl, shop.project.testSecretKey.slice(0, -4) + 'zzzz');
    const publishable = api(shop.system.baseUrl, shop.project.testPublishableKey);
    const readOnly = api(
      shop.system.baseUrl,
      (
        await shop.system.admin<{ key: string }>('POST', `/v1/admin/projects/${shop.project.id}/keys`, {
          kind: 'secret',
          livemode: false,
          scopes: ['payment_links:read'],
        })
      ).key,
    );
    for (const [method, path, body] of routes) {
      expectSimpleError(await shopper(method, path, body), 401, 'invalid_api_key');
      expectSimpleError(await unknownKey(method, path, body), 401, 'invalid_api_key');
      expectSimpleError(await publishable(method, path, body), 403, 'insufficient_permissions');
      const scoped = await readOnly(method, path, body);
      if (method === 'GET') expect(scoped.status, `${method} ${path}`).toBe(200);
      else expectSimpleError(scoped, 403, 'insufficient_permissions');
    }
    expect((await merchant<Link>('GET', `/v1/payment-links/${link.id}`)).body.name).toBe('Guarded');
  });

  it("answers 404 for unknown, malformed, deleted and another environment's or project's links", async () => {
    const link = await createLink(merchant, { name: 'Mine', amount: 1000 });
    const other = await shop.system.createProject('Other Shop');
    const strangers = [
      api(shop.system.baseUrl, other.testSecretKey),
      api(shop.system.baseUrl, shop.project.liveSecretKey),
    ];
    for (const stranger of strangers) {
      expectSimpleError(await stranger('GET', `/v1/payment-links/${link.id}`), 404, 'resource_not_found');
      expectSimpleError(
        await stranger('PATCH', `/v1/payment-links/${link.id}`, { name: 'x' }),
        404,
        'resource_not_found',
      );
      expectSimpleError(await stranger('DELETE', `/v1/payment-links/${link.id}`), 404, 'resource_not_found');
    }
    for (const id of [UNKNOWN_ID, 'abc', 'not-a-uuid-at-all']) {
      expectSimpleError(await merchant('GET', `/v1/payment-links/${id}`), 404, 'resource_not_found');
      expectSimpleError(
        await merchant('PATCH', `/v1/payment-links/${id}`, { name: 'x' }),
        404,
        'resource_not_found',
      );
      expectSimpleError(await merchant('DELETE', `/v1/payment-links/${id}`), 404, 'resource_not_found');
    }
    expect((await merchant('DELETE', `/v1/payment-links/${link.id}`)).status).toBe(200);
    expectSimpleError(await merchant('DELETE', `/v1/payment-links/${link.id}`), 404, 'resource_not_found');
    expectSimpleError(await merchant('GET', `/v1/payment-links/${link.id}`), 404, 'resource_not_found');
  });
});

describe('public link read and start', () => {
  it('answers 404 in the simple form for unknown and malformed short codes', async () => {
    for (const code of ['abc', 'ZZZZZZZZ', 'toolongcode1', 'abc$efgh']) {
      const body = expectSimpleError(await shopper('GET', `/v1/pay/${code}`), 404, 'resource_not_found');
      expect(body.statusCode).toBe(404);
      expectSimpleError(await shopper('POST', `/v1/pay/${code}/sessions`, {}), 404, 'resource_not_found');
    }
  });

  it('answers 200 with the status for inactive and expired links, and refuses to start them', async () => {
    const off = await createLink(merchant, { name: 'Off', amount: 1000 });
    await merchant('PATCH', `/v1/payment-links/${off.id}`, { status: 'INACTIVE' });
    const read = await shopper<Link & { merchantName: string; projectId: string }>(
      'GET',
      `/v1/pay/${off.shortCode}`,
    );
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      status: 'INACTIVE',
      merchantName: 'Links Shop',
      projectId: shop.project.id,
    });
    expectLinkRefusal(await shopper('POST', `/v1/pay/${off.shortCode}/sessions`, {}), 'link_inactive');

    const soon = await createLink(merchant, {
      name: 'Soon',
      amount: 1000,
      expiresAt: new Date(Date.now() + 1000).toISOString(),
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await shopper<Link>('GET', `/v1/pay/${soon.shortCode}`)).body.status).toBe('EXPIRED');
    expectLinkRefusal(await shopper('POST', `/v1/pay/${soon.shortCode}/sessions`, {}), 'link_expired');
  });

  it("keeps a variable link's amount within its minimum and maximum", async () => {
    const link = await createLink(merchant, { name: 'Gift', minAmount: 1000, maxAmount: 5000 });
    const start = (body: unknown) => shopper('POST', `/v1/pay/${link.shortCode}/sessions`, body);
    for (const amount of [999, 5001, 50, 1500.5]) {
      const body = expectSimpleError(await start({ amount }), 400, 'invalid_amount');
      expect(body.errors, String(amount)).toEqual([expect.objectContaining({ field: 'amount' })]);
    }
    expectSimpleError(await start({}), 400, 'invalid_amount');
    expectSimpleError(await start({ amount: 'lots' }), 400, 'invalid_amount');
    expectSimpleError(await start({ amount: 2000, colour: 'red' }), 400, 'validation_error');
    expect((await startLink(shopper, link, { amount: 1000 })).amount).toBe(1000);
    expect((await startLink(shopper, link, { amount: 5000 })).amount).toBe(5000);
  });

  it('requires what the link collects, with the documented codes', async () => {
    const link = await createLink(merchant, {
      name: 'Collect',
      amount: 1000,
      collectEmail: true,
      collectPhone: true,
      customFields: [{ key: 'size', label: 'Size', type: 'select', options: ['S', 'M'], required: true }],
    });
    const start = (body: unknown) => shopper('POST', `/v1/pay/${link.shortCode}/sessions`, body);
    const full = { email: 'awa@example.com', phone: '690000001', customFields: { size: 'M' } };
    expectSimpleError(await start({ ...full, email: undefined }), 400, 'missing_required_field');
    expectSimpleError(await start({ ...full, customFields: {} }), 400, 'missing_required_field');
    expectSimpleError(await start({ ...full, email: 'nope' }), 400, 'invalid_email');
    expectSimpleError(await start({ ...full, phone: '12' }), 400, 'invalid_phone');
    expectSimpleError(await start({ ...full, customFields: { size: 'XL' } }), 400, 'validation_error');
    const session: Session = await startLink(shopper, link, full);
    expect(session.id).toMatch(/^cs_/);
  });

  it('sends a deleted link to 404 everywhere the public reaches it', async () => {
    const link = await createLink(merchant, { name: 'Gone', amount: 1000 });
    expect((await merchant('DELETE', `/v1/payment-links/${link.id}`)).status).toBe(200);
    expectSimpleError(await shopper('GET', `/v1/pay/${link.shortCode}`), 404, 'resource_not_found');
    expectSimpleError(
      await shopper('POST', `/v1/pay/${link.shortCode}/sessions`, {}),
      404,
      'resource_not_found',
    );
    expect((await shopper('GET', `/pay/${link.shortCode}`)).status).toBe(404);
    const list = await merchant<{ data: Link[] }>('GET', '/v1/payment-links?limit=100');
    expect(list.body.data.map((l) => l.id)).not.toContain(link.id);
  });
});
