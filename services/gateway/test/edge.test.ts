import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appError } from '@mmp/protocol';
import type { ForwardedRoute } from '../src/routes/route.js';
import { adminRoutes } from '../src/routes/admin.js';
import { createProject, startTestGateway, type TestGateway } from './support.js';

const meta = { summary: 'test route', tag: 'Test' };
const routes: ForwardedRoute[] = [
  ...adminRoutes,
  {
    ...meta,
    method: 'POST',
    url: '/v1/payments',
    service: 'payments',
    operation: 'create',
    auth: 'merchant',
    scope: 'payments:write',
    errorForm: 'simple',
  },
  {
    ...meta,
    method: 'GET',
    url: '/v1/payments',
    service: 'payments',
    operation: 'list',
    auth: 'merchant',
    scope: 'payments:read',
    errorForm: 'simple',
  },
  {
    ...meta,
    method: 'GET',
    url: '/v1/payments/:token',
    service: 'payments',
    operation: 'retrieve',
    auth: 'merchant',
    scope: 'payments:read',
    errorForm: 'simple',
  },
  {
    ...meta,
    method: 'POST',
    url: '/v1/payments/:token/invalid',
    service: 'payments',
    operation: 'invalid',
    auth: 'merchant',
    scope: 'payments:write',
    errorForm: 'simple',
  },
  {
    ...meta,
    method: 'GET',
    url: '/v1/payment-links',
    service: 'links-checkout',
    operation: 'links.list',
    auth: 'merchant',
    scope: 'payment_links:read',
    errorForm: 'simple',
  },
  {
    ...meta,
    method: 'GET',
    url: '/v1/projects/:projectId/customers',
    service: 'customers',
    operation: 'list',
    auth: 'merchant',
    scope: 'customers:read',
    projectParam: 'projectId',
    errorForm: 'envelope',
  },
  {
    ...meta,
    method: 'GET',
    url: '/v1/slow',
    service: 'payments',
    operation: 'slow',
    auth: 'public',
    errorForm: 'envelope',
  },
  {
    ...meta,
    method: 'GET',
    url: '/v1/nobody',
    service: 'certification-runner',
    operation: 'nothing',
    auth: 'public',
    errorForm: 'envelope',
  },
  {
    ...meta,
    method: 'GET',
    url: '/v1/broken',
    service: 'payments',
    operation: 'broken',
    auth: 'public',
    errorForm: 'simple',
  },
  {
    ...meta,
    method: 'POST',
    url: '/v1/provider/webhooks/:providerId',
    service: 'provider-router',
    operation: 'settlements.ingest',
    auth: 'signed',
    rawBody: true,
    errorForm: 'envelope',
  },
  {
    ...meta,
    method: 'GET',
    url: '/v1/provider/rails',
    service: 'provider-router',
    operation: 'rails.list',
    auth: 'provider',
    errorForm: 'envelope',
  },
  {
    ...meta,
    method: 'GET',
    url: '/pay/:shortCode',
    service: 'links-checkout',
    operation: 'page',
    auth: 'public',
    page: true,
    errorForm: 'simple',
  },
];

let gw: TestGateway;
let shop: Awaited<ReturnType<typeof createProject>>;
let other: Awaited<ReturnType<typeof createProject>>;
const seen: { requestId: string; actor: unknown; request: unknown }[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ routes, env: { REQUEST_TIMEOUT_MS: '300', BODY_LIMIT_BYTES: '4096' } });
  // A fake payments service that keeps payments per project and environment, as the real one must.
  const payments = new Map<string, { token: string; projectId: string; livemode: boolean }>();
  await gw.serve('payments', {
    create: async (request, { actor, requestId }) => {
      seen.push({ requestId, actor, request });
      if (actor.kind !== 'merchant') throw appError('internal_error', 'no actor');
      const token = `pay_${payments.size + 1}xxxxxxxxxxxxxxxxxxxx`;
      payments.set(token, { token, projectId: actor.projectId, livemode: actor.livemode });
      return { status: 201, body: { token, livemode: actor.livemode, echo: request.body } };
    },
    list: async (_request, { actor, requestId }) => ({ status: 200, body: { actor, requestId } }),
    retrieve: async (request, { actor }) => {
      const payment = payments.get(request.params.token ?? '');
      if (
        actor.kind !== 'merchant' ||
        !payment ||
        payment.projectId !== actor.projectId ||
        payment.livemode !== actor.livemode
      ) {
        throw appError('resource_not_found', 'No such payment.');
      }
      return { status: 200, body: payment };
    },
    invalid: async () => {
      throw appError('validation_error', 'Invalid fields: amount, currency.', [
        { field: 'amount', message: 'must be at least 100' },
        { field: 'currency', message: 'must be XAF or XOF' },
      ]);
    },
    slow: async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return { status: 200, body: {} };
    },
    'webhook-endpoints.create': async (request, { actor }) => ({
      status: 201,
      body: {
        id: 'we_1',
        url: (request.body as { url: string }).url,
        secret: 'whsec_abcdefghijklmnopqrstuvwxyz012345',
        actor,
      },
    }),
    'webhook-endpoints.list': async (request, { actor }) => ({
      status: 200,
      body: { actor, query: request.query },
    }),
    broken: async () => {
      throw new Error('database password is hunter2 at /srv/secret/path');
    },
  });
  await gw.serve('links-checkout', {
    'links.list': async (_request, { actor }) => ({ status: 200, body: { actor } }),
    page: async (request) => ({
      status: 200,
      body: `<!doctype html><title>${request.params.shortCode}</title>`,
      contentType: 'text/html; charset=utf-8',
    }),
  });
  await gw.serve('customers', { list: async (_request, { actor }) => ({ status: 200, body: { actor } }) });
  await gw.serve('provider-router', {
    'settlements.ingest': async (request, { actor }) => ({
      status: 200,
      body: { rawBody: request.rawBody, body: request.body, actor, headers: request.headers },
    }),
    'rails.list': async (_request, { actor }) => ({ status: 200, body: { actor } }),
  });
  shop = await createProject(gw, 'Shop');
  other = await createProject(gw, 'Other');
});

afterAll(async () => {
  await gw?.stop();
});

describe('authentication (401)', () => {
  it.each([
    ['missing', undefined, undefined],
    ['malformed header', undefined, { authorization: 'Basic abc' }],
    ['malformed key', 'svc_test_sk_short', undefined],
    ['unknown key', `svc_test_sk_${'A'.repeat(32)}`, undefined],
  ])('refuses a %s key with invalid_api_key in the simple form', async (_name, token, headers) => {
    const response = await gw.http('GET', '/v1/payments', { token, headers });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ statusCode: 401, error: 'Unauthorized', code: 'invalid_api_key' });
    expect(response.json.requestId).toBe(response.headers.get('x-request-id'));
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('refuses a revoked key at once', async () => {
    const created = await gw.admin('POST', `/v1/admin/projects/${shop.id}/keys`, {
      kind: 'secret',
      livemode: false,
    });
    expect(created.status).toBe(201);
    expect((await gw.http('GET', '/v1/payments', { token: created.json.key })).status).toBe(200);
    const revoked = await gw.admin('POST', `/v1/admin/projects/${shop.id}/keys/${created.json.id}/revoke`);
    expect(revoked.json.revokedAt).toEqual(expect.any(String));
    const response = await gw.http('GET', '/v1/payments', { token: created.json.key });
    expect(response.status).toBe(401);
    expect(response.json.code).toBe('invalid_api_key');
  });

  it('refuses an expired key with expired_api_key', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await gw.admin('POST', `/v1/admin/projects/${shop.id}/keys`, {
      kind: 'secret',
      livemode: false,
      expiresAt,
    });
    expect(created.status).toBe(201);
    expect((await gw.http('GET', '/v1/payments', { token: created.json.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const response = await gw.http('GET', '/v1/payments', { token: created.json.key });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ code: 'expired_api_key', statusCode: 401 });
  });

  it('rejects a rolled key on its very next request; the new key works', async () => {
    const created = await gw.admin('POST', `/v1/admin/projects/${shop.id}/keys`, {
      kind: 'secret',
      livemode: true,
    });
    const rolled = await gw.admin('POST', `/v1/admin/projects/${shop.id}/keys/${created.json.id}/roll`);
    expect(rolled.status).toBe(201);
    expect(rolled.json.key).toMatch(/^svc_live_sk_[A-Za-z0-9]{32,}$/);
    expect((await gw.http('GET', '/v1/payments', { token: created.json.key })).status).toBe(401);
    const fresh = await gw.http('GET', '/v1/payments', { token: rolled.json.key });
    expect(fresh.status).toBe(200);
    expect(fresh.json.actor).toMatchObject({ projectId: shop.id, livemode: true, keyId: rolled.json.id });
  });

  it('refuses a wrong admin token in the envelope form', async () => {
    const response = await gw.http('GET', '/v1/admin/projects', {
      token: 'adm_wrong_token_0123456789abcdef',
    });
    expect(response.status).toBe(401);
    expect(response.json.error).toMatchObject({
      code: 'invalid_api_key',
      type: 'authentication_error',
      http_status: 401,
    });
  });
});

describe('authorisation (403, 404)', () => {
  it('refuses a publishable key on a secret route', async () => {
    const response = await gw.http('GET', '/v1/payments', { token: shop.testPublishable.key });
    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({
      statusCode: 403,
      error: 'Forbidden',
      code: 'insufficient_permissions',
    });
  });

  it('serves a publishable key on a publishable-safe route', async () => {
    const response = await gw.http('GET', '/v1/payment-links', { token: shop.testPublishable.key });
    expect(response.status).toBe(200);
  });

  it('refuses a key without the route scope with insufficient_permissions', async () => {
    const limited = await gw.admin('POST', `/v1/admin/projects/${shop.id}/keys`, {
      kind: 'secret',
      livemode: false,
      scopes: ['payments:read'],
    });
    expect((await gw.http('GET', '/v1/payments', { token: limited.json.key })).status).toBe(200);
    const response = await gw.http('POST', '/v1/payments', {
      token: limited.json.key,
      body: { amount: 500 },
    });
    expect(response.status).toBe(403);
    expect(response.json.code).toBe('insufficient_permissions');
  });

  it('refuses to create a publishable key with a secret scope', async () => {
    const response = await gw.admin('POST', `/v1/admin/projects/${shop.id}/keys`, {
      kind: 'publishable',
      livemode: false,
      scopes: ['payments:write'],
    });
    expect(response.status).toBe(422);
    expect(response.json.error.errors).toEqual([{ field: 'scopes', message: expect.any(String) }]);
  });

  it("answers 404 for another project's objects", async () => {
    const own = await gw.http('GET', `/v1/projects/${shop.id}/customers`, { token: shop.testSecret.key });
    expect(own.status).toBe(200);
    const foreign = await gw.http('GET', `/v1/projects/${other.id}/customers`, {
      token: shop.testSecret.key,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error).toMatchObject({ code: 'resource_not_found', http_status: 404 });
  });

  it('keeps test and live data apart: the actor environment follows the key prefix', async () => {
    const testPayment = await gw.http('POST', '/v1/payments', {
      token: shop.testSecret.key,
      body: { amount: 500 },
    });
    const livePayment = await gw.http('POST', '/v1/payments', {
      token: shop.liveSecret.key,
      body: { amount: 700 },
    });
    expect(testPayment.json.livemode).toBe(false);
    expect(livePayment.json.livemode).toBe(true);
    expect(
      (await gw.http('GET', `/v1/payments/${testPayment.json.token}`, { token: shop.testSecret.key })).status,
    ).toBe(200);
    expect(
      (await gw.http('GET', `/v1/payments/${testPayment.json.token}`, { token: shop.liveSecret.key })).status,
    ).toBe(404);
    expect(
      (await gw.http('GET', `/v1/payments/${livePayment.json.token}`, { token: shop.testSecret.key })).status,
    ).toBe(404);
    expect(
      (await gw.http('GET', `/v1/payments/${livePayment.json.token}`, { token: other.liveSecret.key }))
        .status,
    ).toBe(404);
  });
});

describe('forwarding', () => {
  it('carries the actor, the request id, the body and the chosen headers to the service', async () => {
    const response = await gw.http('POST', '/v1/payments', {
      token: shop.testSecret.key,
      body: { amount: 1000, currency: 'XAF' },
      headers: { 'x-request-id': 'merchant-trace-42', 'idempotency-key': 'idem-1', cookie: 'not=forwarded' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBe('merchant-trace-42');
    const call = seen.find((s) => s.requestId === 'merchant-trace-42')!;
    expect(call.actor).toEqual({
      kind: 'merchant',
      projectId: shop.id,
      livemode: false,
      scopes: shop.testSecret.scopes,
      keyId: shop.testSecret.id,
    });
    expect(call.request).toMatchObject({
      body: { amount: 1000, currency: 'XAF' },
      headers: { 'idempotency-key': 'idem-1' },
    });
    expect((call.request as { headers: Record<string, string> }).headers.cookie).toBeUndefined();
  });

  it('makes a req_ id when none (or an insane one) is given', async () => {
    const response = await gw.http('GET', '/v1/payments', {
      token: shop.testSecret.key,
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.json.requestId).toBe(response.headers.get('x-request-id'));
  });

  it('forwards the exact bytes of a signed payload', async () => {
    const raw = '{ "protocol_version":"1",\n  "amount": "5000.00" ,"x":"é"}';
    const response = await gw.http('POST', '/v1/provider/webhooks/prov_1', {
      raw,
      headers: { 'content-type': 'application/json', 'x-service-signature': 'abc123' },
    });
    expect(response.status).toBe(200);
    expect(response.json.rawBody).toBe(raw);
    expect(response.json.headers['x-service-signature']).toBe('abc123');
    expect(response.json.actor).toEqual({ kind: 'public' });
  });

  it('forwards a malformed signed payload for its owner to judge', async () => {
    const response = await gw.http('POST', '/v1/provider/webhooks/prov_1', {
      raw: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.json.rawBody).toBe('{not json');
  });

  it('authenticates providers by their sk_ key', async () => {
    await gw.serve('provider-router', {
      'providers.create': async (request) => ({
        status: 200,
        body: {
          id: 'prov_abc',
          name: (request.body as { name: string }).name,
          signingSecret: 'sig_secret_value_abcdefghijklmnop',
        },
      }),
    });
    const created = await gw.admin('POST', '/v1/admin/providers', { name: 'Acme' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: 'prov_abc',
      name: 'Acme',
      apiKey: expect.stringMatching(/^sk_/),
      signingSecret: expect.any(String),
    });
    const rails = await gw.http('GET', '/v1/provider/rails', { token: created.json.apiKey });
    expect(rails.json.actor).toEqual({ kind: 'provider', providerId: 'prov_abc' });
    const rolled = await gw.admin('POST', '/v1/admin/providers/prov_abc/keys/roll');
    expect((await gw.http('GET', '/v1/provider/rails', { token: created.json.apiKey })).status).toBe(401);
    expect((await gw.http('GET', '/v1/provider/rails', { token: rolled.json.apiKey })).status).toBe(200);
  });

  it('passes pages through with their content type', async () => {
    const response = await gw.http('GET', '/pay/AbCd1234');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.text).toContain('<title>AbCd1234</title>');
  });

  it('serves projects.get to other services', async () => {
    const { createServiceClient, connectNats, createLogger } = await import('@mmp/platform');
    const nc = await connectNats({
      url: gw.system.env.NATS_URL!,
      name: 't',
      log: createLogger({ service: 't', level: 'silent' }),
    });
    const client = createServiceClient({
      nc,
      naming: gw.system.naming,
      caller: 'links-checkout',
      defaultTimeoutMs: 2000,
    });
    const project = await client.command('gateway', 'projects.get', { projectId: shop.id });
    expect(project).toEqual({ id: shop.id, name: 'Shop', displayName: 'Shop', logoUrl: null });
    await expect(client.command('gateway', 'projects.get', { projectId: 'nope' })).rejects.toMatchObject({
      code: 'resource_not_found',
    });
    await nc.drain();
  });
});

describe('admin', () => {
  it('creates a project with a sandbox webhook endpoint and returns its secret once', async () => {
    const response = await gw.admin('POST', '/v1/admin/projects', {
      name: 'Hooked',
      webhookUrl: 'https://shop.example/hooks',
    });
    expect(response.status).toBe(201);
    expect(response.json.keys).toHaveLength(4);
    expect(response.json.webhookEndpoint).toMatchObject({
      id: 'we_1',
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(response.json.webhookEndpoint.actor).toMatchObject({
      kind: 'merchant',
      projectId: response.json.id,
      livemode: false,
      keyId: 'admin',
    });
    const listed = await gw.admin('GET', `/v1/admin/projects/${response.json.id}/keys`);
    expect(listed.json.data).toHaveLength(4);
    expect(JSON.stringify(listed.json)).not.toMatch(/svc_(test|live)_(sk|pk)_[A-Za-z0-9]{8,}/);
  });

  it('acts for a project on its webhook endpoints in the chosen environment', async () => {
    const live = await gw.admin('GET', `/v1/admin/projects/${shop.id}/webhook-endpoints?livemode=true`);
    expect(live.status).toBe(200);
    expect(live.json.actor).toMatchObject({
      kind: 'merchant',
      projectId: shop.id,
      livemode: true,
      keyId: 'admin',
    });
    expect(live.json.query.livemode).toBeUndefined();
    const sandbox = await gw.admin('GET', `/v1/admin/projects/${shop.id}/webhook-endpoints`);
    expect(sandbox.json.actor.livemode).toBe(false);
    const unknown = await gw.admin(
      'GET',
      '/v1/admin/projects/00000000-0000-4000-8000-000000000000/webhook-endpoints',
    );
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('resource_not_found');
  });

  it('validates admin input with one 422 entry per field', async () => {
    const response = await gw.admin('POST', `/v1/admin/projects/${shop.id}/keys`, {
      kind: 'root',
      livemode: 'yes',
    });
    expect(response.status).toBe(422);
    expect(response.json.error.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'kind',
      'livemode',
    ]);
  });
});

describe('error forms', () => {
  it('422 lists one entry per invalid field', async () => {
    const response = await gw.http('POST', '/v1/payments/pay_x/invalid', {
      token: shop.testSecret.key,
      body: {},
    });
    expect(response.status).toBe(422);
    expect(response.json).toEqual({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: 'Invalid fields: amount, currency.',
      code: 'validation_error',
      requestId: response.headers.get('x-request-id'),
      errors: [
        { field: 'amount', message: 'must be at least 100' },
        { field: 'currency', message: 'must be XAF or XOF' },
      ],
    });
  });

  it('400 for malformed JSON', async () => {
    const response = await gw.http('POST', '/v1/payments', {
      token: shop.testSecret.key,
      raw: '{"amount": 10',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'invalid_request' });
  });

  it('415 for a wrong content type', async () => {
    const response = await gw.http('POST', '/v1/payments', {
      token: shop.testSecret.key,
      raw: 'amount=10',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expect(response.json).toMatchObject({ statusCode: 415, code: 'unsupported_media_type' });
  });

  it('413 for a body over the limit', async () => {
    const response = await gw.http('POST', '/v1/payments', {
      token: shop.testSecret.key,
      body: { description: 'x'.repeat(5000) },
    });
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ statusCode: 413, code: 'payload_too_large' });
  });

  it('404 route_not_found in the envelope form for an unknown route', async () => {
    const response = await gw.http('GET', '/v1/nothing/here');
    expect(response.status).toBe(404);
    expect(response.json.error).toMatchObject({
      code: 'route_not_found',
      http_status: 404,
      request_id: response.headers.get('x-request-id'),
    });
    expect(response.headers.get('x-ratelimit-limit')).toBeTruthy();
  });

  it('503 service_unavailable when the service does not answer in time', async () => {
    const response = await gw.http('GET', '/v1/slow');
    expect(response.status).toBe(503);
    expect(response.json.error).toMatchObject({
      code: 'service_unavailable',
      http_status: 503,
      type: 'api_error',
    });
  });

  it('503 service_unavailable when nobody serves the operation', async () => {
    const response = await gw.http('GET', '/v1/nobody');
    expect(response.status).toBe(503);
    expect(response.json.error.code).toBe('service_unavailable');
  });

  it('500 hides the cause and never shows a stack', async () => {
    const response = await gw.http('GET', '/v1/broken');
    expect(response.status).toBe(500);
    expect(response.json).toMatchObject({
      statusCode: 500,
      code: 'internal_error',
      message: 'An internal error occurred.',
    });
    expect(response.text).not.toContain('hunter2');
    expect(response.text).not.toContain(' at ');
  });

  it('sets security headers and the request id on every response', async () => {
    const response = await gw.http('GET', '/v1/payments', { token: shop.testSecret.key });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('logs', () => {
  it('never contain a key or a secret', async () => {
    const text = gw.logs.text();
    expect(text.length).toBeGreaterThan(1000);
    expect(text).toContain('request completed');
    for (const key of [...shop.keys, ...other.keys]) expect(text).not.toContain(key.key.slice(12));
    expect(text).not.toMatch(/svc_(test|live)_(sk|pk)_[A-Za-z0-9]{8,}/);
    expect(text).not.toMatch(/\bsk_[A-Za-z0-9]{8,}/);
    expect(text).not.toContain('sig_secret_value');
    expect(text).not.toMatch(/whsec_[A-Za-z0-9]{8,}/);
    expect(text).not.toContain('adm_test_token');
  });
});
