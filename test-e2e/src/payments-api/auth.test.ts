import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { startSystem, type ProjectKeys, type RunningSystem } from '../support/system.js';
import { api } from '../support/http.js';
import { createPayment, expectSimpleError, type Call } from './helpers.js';

type IssuedKey = { id: string; key: string; scopes: string[] };

let system: RunningSystem;
let project: ProjectKeys;
let merchant: Call;

beforeAll(async () => {
  system = await startSystem();
  project = await system.createProject('Auth Shop');
  merchant = api(system.baseUrl, project.testSecretKey);
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

const create = (key: string | undefined, body: unknown = { amount: 1000 }) =>
  api(system.baseUrl, key)('POST', '/v1/payments', body);
const issueKey = (body: Record<string, unknown>) =>
  system.admin<IssuedKey>('POST', `/v1/admin/projects/${project.id}/keys`, {
    kind: 'secret',
    livemode: false,
    ...body,
  });

describe('authentication on payment routes', () => {
  it('answers 401 invalid_api_key without a key, with an unknown key, or a malformed one', async () => {
    expectSimpleError(await create(undefined), 401, 'invalid_api_key');
    expectSimpleError(await api(system.baseUrl)('GET', '/v1/payments'), 401, 'invalid_api_key');
    const unknownKey = project.testSecretKey.slice(0, -4) + 'zzzz';
    const unknown = expectSimpleError(await create(unknownKey), 401, 'invalid_api_key');
    expect(unknown.error).toBe('Unauthorized');
    expect(JSON.stringify(unknown)).not.toContain(unknownKey);
    expectSimpleError(await create('hello'), 401, 'invalid_api_key');
    const basic = await api(system.baseUrl)('GET', '/v1/payments', undefined, {
      authorization: `Basic ${project.testSecretKey}`,
    });
    expectSimpleError(basic, 401, 'invalid_api_key');
  });

  it('answers 401 invalid_api_key to a revoked key at once', async () => {
    const issued = await issueKey({});
    expect((await create(issued.key)).status).toBe(201);
    await system.admin('POST', `/v1/admin/projects/${project.id}/keys/${issued.id}/revoke`);
    expectSimpleError(await create(issued.key), 401, 'invalid_api_key');
    expectSimpleError(await api(system.baseUrl, issued.key)('GET', '/v1/payments'), 401, 'invalid_api_key');
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
    for (const key of [project.testPublishableKey, project.livePublishableKey]) {
      const publishable = api(system.baseUrl, key);
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
    const reader = api(system.baseUrl, readOnly.key);
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
    expect((await api(system.baseUrl, writeOnly.key)('GET', `/v1/payments/${payment.token}`)).status).toBe(
      200,
    );
    const hooksOnly = await issueKey({ scopes: ['webhooks:write'] });
    expectSimpleError(await create(hooksOnly.key), 403, 'insufficient_permissions');
  });
});

describe('request shape on payment routes', () => {
  it('answers 415 unsupported_media_type to a body that is not JSON', async () => {
    const response = await fetch(`${system.baseUrl}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.testSecretKey}`, 'content-type': 'text/plain' },
      body: 'amount=1000',
    });
    expectSimpleError(
      { status: response.status, body: await response.json(), headers: response.headers },
      415,
      'unsupported_media_type',
    );
  });

  it('answers 413 payload_too_large to an oversized body', async () => {
    const response = await create(project.testSecretKey, {
      amount: 1000,
      description: 'x'.repeat(2_000_000),
    });
    expectSimpleError(response, 413, 'payload_too_large');
  });

  it('answers 400 invalid_request to malformed JSON', async () => {
    const response = await fetch(`${system.baseUrl}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.testSecretKey}`, 'content-type': 'application/json' },
      body: '{"amount": ',
    });
    expectSimpleError(
      { status: response.status, body: await response.json(), headers: response.headers },
      400,
      'invalid_request',
    );
  });
});
