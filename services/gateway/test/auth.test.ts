import { describe, expect, it } from 'vitest';
import { useEdgeGateway } from './fixtures/edge.js';
import { expectEnvelopeError, expectSimpleError } from './fixtures/gateway.js';

const edge = useEdgeGateway('gwauth');

/** A new key of the project Shop, as the operator asks for it. */
const createKey = (body: Record<string, unknown>) =>
  edge.gw.admin('POST', `/v1/admin/projects/${edge.shop.id}/keys`, body);

describe('authentication (401)', () => {
  it.each([
    ['missing', undefined, undefined],
    ['malformed header', undefined, { authorization: 'Basic abc' }],
    ['malformed key', 'svc_test_sk_short', undefined],
    ['unknown key', `svc_test_sk_${'A'.repeat(32)}`, undefined],
  ])('refuses a %s key with invalid_api_key in the simple form', async (_name, token, headers) => {
    const response = await edge.gw.http('GET', '/v1/payments', { token, headers });
    expectSimpleError(response, 401, 'invalid_api_key');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('refuses a revoked key at once', async () => {
    const created = await createKey({ kind: 'secret', livemode: false });
    expect(created.status).toBe(201);
    expect((await edge.gw.http('GET', '/v1/payments', { token: created.json.key })).status).toBe(200);
    const revoked = await edge.gw.admin(
      'POST',
      `/v1/admin/projects/${edge.shop.id}/keys/${created.json.id}/revoke`,
    );
    expect(revoked.json.revokedAt).toEqual(expect.any(String));
    const response = await edge.gw.http('GET', '/v1/payments', { token: created.json.key });
    expect(response.status).toBe(401);
    expect(response.json.code).toBe('invalid_api_key');
  });

  it('refuses an expired key with expired_api_key', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await createKey({ kind: 'secret', livemode: false, expiresAt });
    expect(created.status).toBe(201);
    expect((await edge.gw.http('GET', '/v1/payments', { token: created.json.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const response = await edge.gw.http('GET', '/v1/payments', { token: created.json.key });
    expectSimpleError(response, 401, 'expired_api_key');
  });

  it('rejects a rolled key on its very next request; the new key works', async () => {
    const created = await createKey({ kind: 'secret', livemode: true });
    const rolled = await edge.gw.admin(
      'POST',
      `/v1/admin/projects/${edge.shop.id}/keys/${created.json.id}/roll`,
    );
    expect(rolled.status).toBe(201);
    expect(rolled.json.key).toMatch(/^svc_live_sk_[A-Za-z0-9]{32,}$/);
    expect((await edge.gw.http('GET', '/v1/payments', { token: created.json.key })).status).toBe(401);
    const fresh = await edge.gw.http('GET', '/v1/payments', { token: rolled.json.key });
    expect(fresh.status).toBe(200);
    expect(fresh.json.actor).toMatchObject({
      projectId: edge.shop.id,
      livemode: true,
      keyId: rolled.json.id,
    });
  });

  it('refuses a wrong admin token in the envelope form', async () => {
    const response = await edge.gw.http('GET', '/v1/admin/projects', {
      token: 'adm_wrong_token_0123456789abcdef',
    });
    expectEnvelopeError(response, 401, 'invalid_api_key');
    expect(response.json.error.type).toBe('authentication_error');
  });
});

describe('authorisation (403, 404)', () => {
  it('refuses a publishable key on a secret route', async () => {
    const response = await edge.gw.http('GET', '/v1/payments', { token: edge.shop.testPublishable.key });
    expectSimpleError(response, 403, 'insufficient_permissions');
  });

  it('refuses a publishable key on the payment-link routes (secret-key CRUD)', async () => {
    const response = await edge.gw.http('GET', '/v1/payment-links', { token: edge.shop.testPublishable.key });
    expectSimpleError(response, 403, 'insufficient_permissions');
  });

  it('refuses to create a publishable key with payment_links:read', async () => {
    const response = await createKey({
      kind: 'publishable',
      livemode: false,
      scopes: ['payment_links:read'],
    });
    expect(response.status).toBe(400);
    expect(response.json.error.errors).toEqual([{ field: 'scopes', message: expect.any(String) }]);
  });

  it('refuses a key without the route scope with insufficient_permissions', async () => {
    const limited = await createKey({ kind: 'secret', livemode: false, scopes: ['payments:read'] });
    expect((await edge.gw.http('GET', '/v1/payments', { token: limited.json.key })).status).toBe(200);
    const response = await edge.gw.http('POST', '/v1/payments', {
      token: limited.json.key,
      body: { amount: 500 },
    });
    expect(response.status).toBe(403);
    expect(response.json.code).toBe('insufficient_permissions');
  });

  it('refuses to create a publishable key with a secret scope', async () => {
    const response = await createKey({ kind: 'publishable', livemode: false, scopes: ['payments:write'] });
    expect(response.status).toBe(400);
    expect(response.json.error.errors).toEqual([
      { field: 'scopes', message: expect.stringMatching(/may hold only checkout_sessions:read$/) },
    ]);
  });

  it('refuses an unknown scope as unknown, naming the scopes there are', async () => {
    const response = await createKey({
      kind: 'secret',
      livemode: false,
      scopes: ['payments:read', 'payments:admin'],
    });
    expect(response.status).toBe(400);
    expect(response.json.error.message).toBe('A secret key cannot hold: payments:admin.');
    expect(response.json.error.errors).toEqual([
      {
        field: 'scopes',
        message: expect.stringMatching(
          /^payments:admin is not a scope; scopes are payments:read, payments:write,/,
        ),
      },
    ]);
  });

  it("answers 404 for another project's objects", async () => {
    const own = await edge.gw.http('GET', `/v1/projects/${edge.shop.id}/customers`, {
      token: edge.shop.testSecret.key,
    });
    expect(own.status).toBe(200);
    const foreign = await edge.gw.http('GET', `/v1/projects/${edge.other.id}/customers`, {
      token: edge.shop.testSecret.key,
    });
    expectEnvelopeError(foreign, 404, 'resource_not_found');
  });

  it('keeps test and live data apart: the actor environment follows the key prefix', async () => {
    const testPayment = await edge.gw.http('POST', '/v1/payments', {
      token: edge.shop.testSecret.key,
      body: { amount: 500 },
    });
    const livePayment = await edge.gw.http('POST', '/v1/payments', {
      token: edge.shop.liveSecret.key,
      body: { amount: 700 },
    });
    expect(testPayment.json.livemode).toBe(false);
    expect(livePayment.json.livemode).toBe(true);
    const read = async (payment: { token: string }, key: { key: string }) =>
      (await edge.gw.http('GET', `/v1/payments/${payment.token}`, { token: key.key })).status;
    expect(await read(testPayment.json, edge.shop.testSecret)).toBe(200);
    expect(await read(testPayment.json, edge.shop.liveSecret)).toBe(404);
    expect(await read(livePayment.json, edge.shop.testSecret)).toBe(404);
    expect(await read(livePayment.json, edge.other.liveSecret)).toBe(404);
  });
});
