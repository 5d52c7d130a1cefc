import { expect } from 'vitest';
import { appError } from '@mmp/protocol';
import type { ForwardedRoute } from '../src/routes/route.js';
import { adminRoutes } from '../src/routes/admin.js';
import { createProject, startTestGateway } from './support.js';

/**
 * The edge tests' gateway: a route of each kind (merchant, public, signed, provider, page,
 * admin) forwarded to fake services that keep payments per project and environment, as the
 * real ones must, plus two projects.
 */
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

/** Starts the gateway with its fake services and creates the projects Shop and Other. */
export async function startEdgeGateway(label: string) {
  const gw = await startTestGateway({
    routes,
    label,
    env: { REQUEST_TIMEOUT_MS: '300', BODY_LIMIT_BYTES: '4096' },
  });
  const seen: { requestId: string; actor: unknown; request: unknown }[] = [];
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
  const shop = await createProject(gw, 'Shop');
  const other = await createProject(gw, 'Other');
  return { gw, shop, other, seen };
}
export type EdgeGateway = Awaited<ReturnType<typeof startEdgeGateway>>;

/** The whole log of the gateway never holds a key, a signing secret or the admin token. */
export function expectNoSecretsInLogs(edge: EdgeGateway): void {
  const text = edge.gw.logs.text();
  expect(text.length).toBeGreaterThan(1000);
  expect(text).toContain('request completed');
  for (const key of [...edge.shop.keys, ...edge.other.keys]) expect(text).not.toContain(key.key.slice(12));
  expect(text).not.toMatch(/svc_(test|live)_(sk|pk)_[A-Za-z0-9]{8,}/);
  expect(text).not.toMatch(/\bsk_[A-Za-z0-9]{8,}/);
  expect(text).not.toContain('sig_secret_value');
  expect(text).not.toMatch(/whsec_[A-Za-z0-9]{8,}/);
  expect(text).not.toMatch(/ssec_[A-Za-z0-9]{8,}/);
  expect(text).not.toContain('adm_test_token');
}
