import { afterAll, beforeAll, expect } from 'vitest';
import {
  eventually,
  makeTestCertificate,
  startProviderEndpoint,
  type ProviderEndpoint,
} from '@mmp/platform/testing';
import { routerQueries } from '@mmp/protocol';
import { startSystem, type ProjectKeys, type RunningSystem } from './system.js';
import { api } from './http.js';
import { providerBus, type ProviderBus } from './provider-bus.js';
import { payOnHostedPage } from './shopper.js';

export type Provider = { id: string; apiKey: string; signingSecret: string };
export type Rail = { id: string; secret: string };
export type RailRoute = {
  network: string;
  country: string;
  currency: string;
  environment?: 'sandbox' | 'live';
};
export type RoutingEntry = {
  id: string;
  type: 'routing.decided';
  createdAt: string;
  decision: 'routed' | 'failover' | 'no_rail';
  railId: string | null;
  providerId: string | null;
  reason: string;
  skipped: { railId: string; reason: string }[];
};

/**
 * The whole system, with the two services that call providers' endpoints (provider-router's
 * rail tests, provider-delivery's orders) as their own processes trusting `certificate`
 * through NODE_EXTRA_CA_CERTS, which Node reads only at start. The sandbox provider is left
 * out, so only the test's rails take orders. The endpoints are on loopback: the development
 * switch is on unless `env` turns it off.
 */
export async function startWithTrustedProviders(
  certificate: { certPath: string },
  env: Record<string, string> = {},
): Promise<RunningSystem> {
  const system = await startSystem({
    external: ['provider-router', 'provider-delivery', 'sandbox-provider'],
    env,
  });
  for (const name of ['provider-router', 'provider-delivery'] as const)
    await system.spawnService(name, { NODE_EXTRA_CA_CERTS: certificate.certPath }).waitReady();
  return system;
}

/**
 * A test file's system for routing over real HTTPS (`startWithTrustedProviders`), one HTTPS
 * endpoint serving every rail at its own path. Registers its own beforeAll and afterAll;
 * `system`, `endpoint` and `project` are set once beforeAll has run.
 */
export function routingHarness(env: Record<string, string> = {}) {
  const certificate = makeTestCertificate();
  let bus: ProviderBus;
  const h = {
    system: undefined as unknown as RunningSystem,
    endpoint: undefined as unknown as ProviderEndpoint,
    project: undefined as unknown as ProjectKeys,
    newProvider,
    testedRail,
    activeRail,
    pay,
    timelineOf,
    orderOf,
    decisionsOf,
  };

  beforeAll(async () => {
    h.system = await startWithTrustedProviders(certificate, env);
    h.endpoint = await startProviderEndpoint(certificate);
    h.project = await h.system.createProject('Routing Shop');
    bus = await providerBus(h.system, 'routing-e2e');
  }, 60_000);

  afterAll(async () => {
    await bus?.close();
    await h.endpoint?.close();
    await h.system?.stop();
    certificate.remove();
  });

  async function newProvider(name: string): Promise<Provider> {
    return h.system.admin('POST', '/v1/admin/providers', { name });
  }

  /** A webhook rail at `path` of the HTTPS endpoint, created and tested over the provider API. */
  async function testedRail(
    provider: Provider,
    path: string,
    route: RailRoute,
    priority: number,
  ): Promise<Rail> {
    const portal = api(h.system.baseUrl, provider.apiKey);
    const rail = await portal<Rail>('POST', '/v1/provider/rails', {
      transport: 'webhook',
      endpoint: h.endpoint.url(path),
      networks: [route.network],
      countries: [route.country],
      currencies: [route.currency],
      environment: route.environment ?? 'sandbox',
      priority,
    });
    expect(rail.status).toBe(201);
    expect((await portal('POST', `/v1/provider/rails/${rail.body.id}/test`)).body).toMatchObject({
      status: 'TESTED',
    });
    return rail.body;
  }

  /** A webhook rail at `path` of the HTTPS endpoint, tested and activated over the provider API. */
  async function activeRail(
    provider: Provider,
    path: string,
    route: RailRoute,
    priority: number,
  ): Promise<Rail> {
    const rail = await testedRail(provider, path, route, priority);
    const portal = api(h.system.baseUrl, provider.apiKey);
    expect((await portal('POST', `/v1/provider/rails/${rail.id}/activate`)).body).toMatchObject({
      status: 'ACTIVE',
    });
    return rail;
  }

  /**
   * The merchant creates a payment (a sandbox one, unless `secretKey` is the live key); the
   * payer pays it with `phone` on the hosted page's API.
   */
  async function pay(
    route: { network: string; currency: string },
    phone: string,
    secretKey = h.project.testSecretKey,
  ) {
    const merchant = api(h.system.baseUrl, secretKey);
    const created = await merchant<{ id: string; token: string; paymentUrl: string }>(
      'POST',
      '/v1/payments',
      {
        amount: 5000,
        currency: route.currency,
      },
    );
    expect(created.status).toBe(201);
    await payOnHostedPage(h.system.baseUrl, created.body, phone, route.network);
    const status = async () =>
      (await merchant<{ status: string }>('GET', `/v1/payments/${created.body.token}`)).body.status;
    return { id: created.body.id, token: created.body.token, status };
  }

  /** The payment's timeline as the merchant reads it, once it holds `count` routing entries. */
  async function timelineOf(token: string, count: number, secretKey = h.project.testSecretKey) {
    const merchant = api(h.system.baseUrl, secretKey);
    return eventually(async () => {
      const { body } = await merchant<{ events: (Record<string, unknown> & { type: string })[] }>(
        'GET',
        `/v1/payments/${token}?expand[]=events`,
      );
      const routing = body.events.filter((entry) => entry.type === 'routing.decided') as RoutingEntry[];
      return routing.length >= count ? { all: body.events, routing } : undefined;
    }, 20_000);
  }

  /** provider-router's record of a payment's order (as payments reads it): its decisions and their reasons. */
  async function orderOf(paymentId: string) {
    const { order } = await bus
      .as('payments')
      .request(routerQueries.orderStatus, { paymentId }, { timeoutMs: 3000 });
    return order;
  }

  /** Waits until the order's decision log has `actions`, then returns it. */
  async function decisionsOf(paymentId: string, actions: string[]) {
    return eventually(async () => {
      const order = await orderOf(paymentId);
      const seen = order?.decisions.map((decision) => decision.action) ?? [];
      return seen.length >= actions.length ? order! : undefined;
    }, 20_000);
  }

  return h;
}
