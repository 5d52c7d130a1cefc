import { describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { eventually } from '@mmp/platform/testing';
import { api } from '../support/http.js';
import { createPayment, expectSimpleError } from './helpers.js';

type IssuedKey = { id: string; key: string; scopes: string[] };

const shop = useShop('Auth Shop');
const { merchant } = shop;

const create = (key: string | undefined, body: unknown = { amount: 1000 }) =>
  api(shop.system.baseUrl, key)('POST', '/v1/payments', body);
const issueKey = (body: Record<string, unknown>) =>
  shop.system.admin<IssuedKey>('POST', `/v1/admin/projects/${shop.project.id}/keys`, {
    kind: 'secret',
    livemode: false,
    ...body,
  });

describe('authentication on payment routes', () => {
  it('answers 401 invalid_api_key without a key, with an unknown key, or a malformed one', async () => {
    expectSimpleError(await create(undefined), 401, 'invalid_api_key');
    expectSimpleError(await api(shop.system.baseUrl)('GET', '/v1/payments'), 401, 'invalid_api_key');
    const unknownKey = shop.project.testSecretKey.slice(0, -4) + 'zzzz';
    const unknown = expectSimpleError(await create(unknownKey), 401, 'invalid_api_key');
    expect(unknown.error).toBe('Unauthorized');
    expect(JSON.stringify(unknown)).not.toContain(unknownKey);
    expectSimpleError(await create('hello'), 401, 'invalid_api_key');
    const basic = await api(shop.system.baseUrl)('GET', '/v1/payments', undefined, {
      authorization: `Basic ${shop.project.testSecretKey}`,
    });
    expectSimpleError(basic, 401, 'invalid_api_key');
  });

  it('answers 401 invalid_api_key to a revoked key at once', async () => {
    const issued = await issueKey({});
    expect((await create(issued.key)).status).toBe(201);
    await shop.system.admin('POST', `/v1/admin/projects/${shop.project.id}/keys/${issued.id}/revoke`);
    expectSimpleError(await create(issued.key), 401, 'invalid_api_key');
    expectSimpleError(
      await api(shop.system.baseUrl, issued.key)('GET', '/v1/payments'),
      401,
      'invalid_api_key',
    );
  });

  it('answers 401 expired_api_key once a key has expired', async () => {
    const issued = await issueKey({ expiresAt: new Date(Date.now() + 1500).toISOString() });
    expect((await create(issued.key)).status).toBe(201);
    const expired = await eventually(
      async () => {
        const response = await create(issued.key);
        return response.status === 401 ? response : undefined;
      },
      5_000,
      100,
    );
    expectSimpleError(expired, 401, 'expired_api_key');
  });

  it('answers 403 insufficient_permissions to a publishable key on every payment route', async () => {
    const payment = await createPayment(merchant);
    for (const key of [shop.project.testPublishableKey, shop.project.livePublishableKey]) {
      const publishable = api(shop.system.baseUrl, key);
      expectSimpleError(await create(key), 403, 'insufficient_permissions');
      expectSimpleError(await publishable('GET', '/v1/payments'), 403, 'insufficient_permissions');
      expectSimpleError(
        await publishable('GET', `/v1/payments/${payment.token}`),
        403,
        'insufficient_permissions',
      );
      expectSimpleError(
        await publishable('GET', `/v1/payments/${payment.token}/verify`),
        403,
        'insufficient_permissions',
      );
      expectSimpleError(
        await publishable('POST', `/v1/payments/${payment.token}/cancel`),
        403,
        'insufficient_permissions',
      );
      const user = '/v1/payments/user/0b7e9a52-8c1f-4d2e-9f3a-5b6c7d8e9f01';
      expectSimpleError(await publishable('GET', user), 403, 'insufficient_permissions');
    }
  });

  it('serves a restricted secret key only what its scopes allow', async () => {
    const readOnly = await issueKey({ scopes: ['payments:read'] });
    const reader = api(shop.system.baseUrl, readOnly.key);
    const payment = await createPayment(merchant);
    expect((await reader('GET', '/v1/payments')).status).toBe(200);
    expect((await reader('GET', `/v1/payments/${payment.token}`)).status).toBe(200);
    expectSimpleError(await create(readOnly.key), 403, 'insufficient_permissions');
    expectSimpleError(
      await reader('POST', `/v1/payments/${payment.token}/cancel`),
      403,
      'insufficient_permissions',
    );
    const writeOnly = await issueKey({ scopes: ['payments:write'] });
    // Write implies read.
    expect(
      (await api(shop.system.baseUrl, writeOnly.key)('GET', `/v1/payments/${payment.token}`)).status,
    ).toBe(200);
    const hooksOnly = await issueKey({ scopes: ['webhooks:write'] });
    expectSimpleError(await create(hooksOnly.key), 403, 'insufficient_permissions');
  });
});

describe('request shape on payment routes', () => {
  /** A create whose body is sent as written, with its own content type. */
  async function postRaw(contentType: string, body: string) {
    const response = await fetch(`${shop.system.baseUrl}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.project.testSecretKey}`, 'content-type': contentType },
      body,
    });
    return { status: response.status, body: await response.json(), headers: response.headers };
  }

  it('answers 415 unsupported_media_type to a body that is not JSON', async () => {
    expectSimpleError(await postRaw('text/plain', 'amount=1000'), 415, 'unsupported_media_type');
  });

  it('answers 413 payload_too_large to an oversized body', async () => {
    const response = await create(shop.project.testSecretKey, {
      amount: 1000,
      description: 'x'.repeat(2_000_000),
    });
    expectSimpleError(response, 413, 'payload_too_large');
  });

  it('answers 400 invalid_request to malformed JSON', async () => {
    expectSimpleError(await postRaw('application/json', '{"amount": '), 400, 'invalid_request');
  });
});
