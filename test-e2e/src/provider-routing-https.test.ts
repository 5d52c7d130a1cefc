import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, createLogger, createServiceClient, type NatsConnection } from '@mmp/platform';
import { eventually, makeTestCertificate } from '@mmp/platform/testing';
import { pushSettlement } from '@mmp/provider-kit';
import { startSystem, type ChildService, type ProjectKeys, type RunningSystem } from './support/system.js';
import { api } from './support/http.js';
import {
  answerOrders,
  failOrders,
  signedWith,
  startHttpsProvider,
  type HttpsProvider,
} from './support/https-provider.js';
import { payOnHostedPage } from './support/shopper.js';

/**
 * Issue 5's routing rules over real HTTP and NATS: merchant and payer call the gateway,
 * provider-router routes, provider-delivery (its own process, trusting this run's
 * self-signed certificate through NODE_EXTRA_CA_CERTS) posts signed orders to real HTTPS
 * endpoints. A first rail answering 500 or REJECTED fails over to the second, and the
 * payment completes on its settlement; a rail failing again and again is skipped by its
 * circuit breaker, then closed again by a half-open success; a lower priority number wins
 * even for the younger rail; rails of another network, currency, country or environment are
 * never chosen, and no eligible rail fails the payment. Each routing decision and its
 * reason is read where the merchant sees it, on the payment's timeline (`expand[]=events`),
 * and on provider-router's order record.
 */
const COOLDOWN_MS = 8000;
const certificate = makeTestCertificate();
let system: RunningSystem;
let delivery: ChildService;
let endpoint: HttpsProvider;
let project: ProjectKeys;
let nc: NatsConnection;

beforeAll(async () => {
  system = await startSystem({
    external: ['provider-delivery', 'sandbox-provider'],
    env: {
      BREAKER_FAILURES: '2',
      BREAKER_WINDOW_MS: '60000',
      BREAKER_COOLDOWN_MS: String(COOLDOWN_MS),
    },
  });
  delivery = system.spawnService('provider-delivery', { NODE_EXTRA_CA_CERTS: certificate.certPath });
  await delivery.waitReady();
  endpoint = await startHttpsProvider(certificate);
  project = await system.createProject('Routing Shop');
  nc = await connectNats({
    url: system.system.env.NATS_URL!,
    name: 'routing-e2e',
    log: createLogger({ service: 'test', level: 'silent' }),
  });
}, 60_000);

afterAll(async () => {
  await nc?.drain();
  await endpoint?.close();
  await system?.stop();
  certificate.remove();
});

type Provider = { id: string; apiKey: string; signingSecret: string };
type Rail = { id: string; secret: string };
type Decision = { action: string; railId: string | null; reason: string; skipped?: unknown[] };

async function newProvider(name: string): Promise<Provider> {
  return system.admin('POST', '/v1/admin/providers', { name });
}

type RailRoute = { network: string; country: string; currency: string; environment?: 'sandbox' | 'live' };

/** A webhook rail at `path` of the HTTPS endpoint, created and tested over the provider API. */
async function testedRail(
  provider: Provider,
  path: string,
  route: RailRoute,
  priority: number,
): Promise<Rail> {
  const portal = api(system.baseUrl, provider.apiKey);
  const rail = await portal<Rail>('POST', '/v1/provider/rails', {
    transport: 'webhook',
    endpoint: endpoint.url(path),
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
  const portal = api(system.baseUrl, provider.apiKey);
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
  secretKey = project.testSecretKey,
) {
  const merchant = api(system.baseUrl, secretKey);
  const created = await merchant<{ id: string; token: string; paymentUrl: string }>('POST', '/v1/payments', {
    amount: 5000,
    currency: route.currency,
  });
  expect(created.status).toBe(201);
  await payOnHostedPage(system.baseUrl, created.body, phone, route.network);
  const status = async () =>
    (await merchant<{ status: string }>('GET', `/v1/payments/${created.body.token}`)).body.status;
  return { id: created.body.id, token: created.body.token, status };
}

type RoutingEntry = {
  id: string;
  type: 'routing.decided';
  createdAt: string;
  decision: 'routed' | 'failover' | 'no_rail';
  railId: string | null;
  providerId: string | null;
  reason: string;
  skipped: { railId: string; reason: string }[];
};

/** The payment's timeline as the merchant reads it, once it holds `count` routing entries. */
async function timelineOf(token: string, count: number, secretKey = project.testSecretKey) {
  const merchant = api(system.baseUrl, secretKey);
  return eventually(async () => {
    const { body } = await merchant<{ events: (Record<string, unknown> & { type: string })[] }>(
      'GET',
      `/v1/payments/${token}?expand[]=events`,
    );
    const routing = body.events.filter((entry) => entry.type === 'routing.decided') as RoutingEntry[];
    return routing.length >= count ? { all: body.events, routing } : undefined;
  }, 20_000);
}

/** provider-router's record of a payment's order: its decisions and their reasons. */
async function orderOf(paymentId: string) {
  const services = createServiceClient({
    nc,
    naming: system.system.naming,
    caller: 'routing-e2e',
    defaultTimeoutMs: 3000,
  });
  const { order } = await services.command<{
    order: { orderKey: string; status: string; railId: string; decisions: Decision[] } | null;
  }>('provider-router', 'orders.status', { paymentId });
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

describe('failover over HTTPS', () => {
  it.each([
    [
      'answers 500',
      failOrders(500),
      'HTTP_ERROR (HTTP 500)',
      { network: 'ORANGE_MONEY', phone: '+237690000001' },
    ],
    [
      'answers REJECTED',
      answerOrders('REJECTED', 'rail_maintenance'),
      'REJECTED (rail_maintenance)',
      { network: 'MTN_MOMO', phone: '+237670000001' },
    ],
  ])(
    'a first rail that %s fails over to the second rail, which completes the payment',
    async (row, firstAnswer, why, payer) => {
      const route = { network: payer.network, country: 'CM', currency: 'XAF' };
      const [first, second] = [`/first-${payer.network}`, `/second-${payer.network}`];
      endpoint.on(first, firstAnswer);
      endpoint.on(second, answerOrders('ACCEPTED'));
      const failing = await newProvider(`Failing (${row})`);
      const working = await newProvider(`Working (${row})`);
      const railA = await activeRail(failing, first, route, 0);
      const railB = await activeRail(working, second, route, 1);

      const payment = await pay(route, payer.phone);
      await eventually(async () => (await payment.status()) === 'PROCESSING', 20_000);
      const { routing } = await timelineOf(payment.token, 2);
      expect(routing).toEqual([
        {
          id: expect.stringMatching(/^evt_/),
          type: 'routing.decided',
          createdAt: expect.any(String),
          decision: 'routed',
          railId: railA.id,
          providerId: failing.id,
          reason: expect.stringContaining(`chose rail ${railA.id}`),
          skipped: [],
        },
        {
          id: expect.stringMatching(/^evt_/),
          type: 'routing.decided',
          createdAt: expect.any(String),
          decision: 'failover',
          railId: railB.id,
          providerId: working.id,
          reason: expect.stringContaining(`on rail ${railA.id}: ${why}`),
          skipped: [{ railId: railA.id, reason: 'already tried' }],
        },
      ]);
      const [toA] = endpoint.orders(first);
      const orderKey = String(toA!.body.idempotency_key);
      expect(orderKey).toMatch(/^pexec_/);
      expect(signedWith(railA.secret, toA!)).toBe(true);
      const toB = endpoint.orders(second, orderKey);
      expect(toB).toHaveLength(1);
      expect(signedWith(railB.secret, toB[0]!)).toBe(true);
      expect(toB[0]!.rawBody).toBe(toA!.rawBody);

      const order = await decisionsOf(payment.id, ['routed', 'failover', 'accepted']);
      expect(order.decisions.map((d) => [d.action, d.railId])).toEqual([
        ['routed', railA.id],
        ['failover', railB.id],
        ['accepted', railB.id],
      ]);
      expect(order.decisions[1]!.reason).toContain(`on rail ${railA.id}: ${why}`);
      expect(order.decisions[1]!.skipped).toEqual([{ railId: railA.id, reason: 'already tried' }]);

      const settled = await pushSettlement({
        baseUrl: `${system.baseUrl}/v1`,
        providerId: working.id,
        signingSecret: working.signingSecret,
        event: {
          protocol_version: '1',
          idempotency_key: orderKey,
          transaction_ref: payment.token,
          amount: '5000',
          currency: 'XAF',
          status: 'COMPLETED',
          network: payer.network as 'ORANGE_MONEY' | 'MTN_MOMO',
          settled_at: new Date().toISOString(),
        },
      });
      expect(settled).toMatchObject({ status: 200, body: { matched: true, orderKey } });
      await eventually(async () => (await payment.status()) === 'COMPLETED', 20_000);
    },
  );
});

describe('circuit breaker over HTTPS', () => {
  it('opens after repeated failures (the next payment skips the rail, saying why) and closes after a half-open success', async () => {
    const route = { network: 'ORANGE_MONEY', country: 'CI', currency: 'XOF' };
    const phone = '+2250700000001';
    endpoint.on('/flaky', failOrders(500));
    endpoint.on('/steady', answerOrders('ACCEPTED'));
    const flakyProvider = await newProvider('Flaky');
    const steadyProvider = await newProvider('Steady');
    const flaky = await activeRail(flakyProvider, '/flaky', route, 0);
    const steady = await activeRail(steadyProvider, '/steady', route, 1);
    const accepted = async (payment: Awaited<ReturnType<typeof pay>>) => {
      await eventually(async () => (await payment.status()) === 'PROCESSING', 20_000);
      return orderOf(payment.id);
    };

    // Two failed deliveries on the flaky rail, each failed over: its breaker opens.
    for (let i = 0; i < 2; i += 1) {
      const payment = await pay(route, phone);
      await accepted(payment);
      const order = await decisionsOf(payment.id, ['routed', 'failover', 'accepted']);
      expect(order.decisions.map((d) => [d.action, d.railId])).toEqual([
        ['routed', flaky.id],
        ['failover', steady.id],
        ['accepted', steady.id],
      ]);
    }
    const flakyOrders = endpoint.orders('/flaky').length;

    // Open: the next payment goes straight to the steady rail, and says why.
    const whileOpen = await pay(route, phone);
    const skipped = await accepted(whileOpen);
    expect((await timelineOf(whileOpen.token, 1)).routing).toMatchObject([
      {
        decision: 'routed',
        railId: steady.id,
        providerId: steadyProvider.id,
        reason: expect.stringContaining(`${flaky.id} circuit breaker open`),
        skipped: [{ railId: flaky.id, reason: 'circuit breaker open' }],
      },
    ]);
    expect(skipped!.decisions[0]).toMatchObject({
      action: 'routed',
      railId: steady.id,
      skipped: [{ railId: flaky.id, reason: 'circuit breaker open' }],
    });
    expect(skipped!.decisions[0]!.reason).toContain(`${flaky.id} circuit breaker open`);
    expect(endpoint.orders('/flaky')).toHaveLength(flakyOrders);

    // The flaky rail recovers; after the cooldown one trial order goes to it and succeeds.
    endpoint.on('/flaky', answerOrders('ACCEPTED'));
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS + 200));
    const trial = await pay(route, phone);
    const trialOrder = await accepted(trial);
    expect(trialOrder!.decisions.map((d) => [d.action, d.railId])).toEqual([
      ['routed', flaky.id],
      ['accepted', flaky.id],
    ]);
    expect(trialOrder!.decisions[0]!.reason).toContain('half-open trial after breaker cooldown');
    expect((await timelineOf(trial.token, 1)).routing).toMatchObject([
      {
        decision: 'routed',
        railId: flaky.id,
        reason: expect.stringContaining('half-open trial after breaker cooldown'),
        skipped: [],
      },
    ]);

    // Closed: the flaky rail is first choice again, nothing skipped.
    const afterwards = await pay(route, phone);
    const closed = await accepted(afterwards);
    expect(closed!.decisions[0]).toMatchObject({ action: 'routed', railId: flaky.id, skipped: [] });
    expect((await timelineOf(afterwards.token, 1)).routing).toMatchObject([
      { decision: 'routed', railId: flaky.id, skipped: [] },
    ]);
    expect(closed!.decisions[0]!.reason).not.toContain('half-open');
    expect(endpoint.orders('/flaky')).toHaveLength(flakyOrders + 2);
  }, 60_000);
});

describe('which rail gets the order', () => {
  it('a rail with a lower priority number wins even though it was created after the other', async () => {
    const route = { network: 'ORANGE_MONEY', country: 'SN', currency: 'XOF' };
    endpoint.on('/older-priority-5', answerOrders('ACCEPTED'));
    endpoint.on('/younger-priority-1', answerOrders('ACCEPTED'));
    const olderProvider = await newProvider('Older, priority 5');
    await activeRail(olderProvider, '/older-priority-5', route, 5);
    const youngerProvider = await newProvider('Younger, priority 1');
    const younger = await activeRail(youngerProvider, '/younger-priority-1', route, 1);

    const payment = await pay(route, '+221771234567');
    await eventually(async () => (await payment.status()) === 'PROCESSING', 20_000);
    expect((await timelineOf(payment.token, 1)).routing).toMatchObject([
      {
        decision: 'routed',
        railId: younger.id,
        providerId: youngerProvider.id,
        reason: `chose rail ${younger.id} of provider ${youngerProvider.id} (not certified, priority 1)`,
        skipped: [],
      },
    ]);
    expect(endpoint.orders('/younger-priority-1')).toHaveLength(1);
    expect(endpoint.orders('/older-priority-5')).toEqual([]);
  });

  describe('rails that do not serve the payment, all at the best priority', () => {
    // The payer pays MTN MoMo in Côte d'Ivoire, in XOF, with a sandbox key.
    const route = { network: 'MTN_MOMO', country: 'CI', currency: 'XOF' };
    const phone = '+2250500000001';
    const decoys: Record<string, RailRoute> = {
      '/other-network': { ...route, network: 'WAVE' },
      '/other-currency': { ...route, currency: 'XAF' },
      '/other-country': { ...route, country: 'SN' },
      '/other-environment': { ...route, environment: 'live' },
    };
    let decoyProvider: Provider;

    beforeAll(async () => {
      decoyProvider = await newProvider('Decoys');
      for (const [path, railRoute] of Object.entries(decoys)) {
        endpoint.on(path, answerOrders('ACCEPTED'));
        if (railRoute.environment === 'live') {
          // A live rail is refused activation until certified; it stays TESTED, never chosen.
          const live = await testedRail(decoyProvider, path, railRoute, 0);
          const portal = api(system.baseUrl, decoyProvider.apiKey);
          const refused = await portal('POST', `/v1/provider/rails/${live.id}/activate`);
          expect(refused).toMatchObject({ status: 409, body: { error: { code: 'invalid_state' } } });
        } else {
          await activeRail(decoyProvider, path, railRoute, 0);
        }
      }
    });

    const decoyOrders = () => Object.keys(decoys).flatMap((path) => endpoint.orders(path));

    it('leave the payment without a rail: it fails with provider_unavailable', async () => {
      const payment = await pay(route, phone);
      await eventually(async () => (await payment.status()) === 'FAILED', 20_000);
      const { all, routing } = await timelineOf(payment.token, 1);
      expect(routing).toMatchObject([
        { decision: 'no_rail', railId: null, reason: 'no ACTIVE rail serves sandbox MTN_MOMO XOF CI' },
      ]);
      expect(all.find((entry) => entry.type === 'payment.failed')).toMatchObject({
        failureCode: 'provider_unavailable',
      });
      expect(decoyOrders()).toEqual([]);
    });

    it('are passed over for the one rail that fits, though it is the youngest at the worst priority', async () => {
      endpoint.on('/fits', answerOrders('ACCEPTED'));
      const fitsProvider = await newProvider('Fits');
      const fits = await activeRail(fitsProvider, '/fits', route, 9);

      const payment = await pay(route, phone);
      await eventually(async () => (await payment.status()) === 'PROCESSING', 20_000);
      expect((await timelineOf(payment.token, 1)).routing).toMatchObject([
        { decision: 'routed', railId: fits.id, providerId: fitsProvider.id, skipped: [] },
      ]);
      expect(endpoint.orders('/fits')).toHaveLength(1);
      expect(decoyOrders()).toEqual([]);
    });

    it('a live payment on that route is never sent to the sandbox rail that fits it in every other way', async () => {
      const payment = await pay(route, phone, project.liveSecretKey);
      await eventually(async () => (await payment.status()) === 'FAILED', 20_000);
      const { all, routing } = await timelineOf(payment.token, 1, project.liveSecretKey);
      expect(routing).toMatchObject([
        { decision: 'no_rail', railId: null, reason: 'no ACTIVE rail serves live MTN_MOMO XOF CI' },
      ]);
      expect(all.find((entry) => entry.type === 'payment.failed')).toMatchObject({
        failureCode: 'provider_unavailable',
      });
      expect(endpoint.orders('/fits')).toHaveLength(1);
      expect(decoyOrders()).toEqual([]);
    });
  });
});

describe('no eligible rail', () => {
  it('fails the payment with provider_unavailable, and the timeline says why', async () => {
    // No rail of this test serves Moov Money in Côte d'Ivoire.
    const payment = await pay({ network: 'MOOV_MONEY', currency: 'XOF' }, '+2250100000001');
    await eventually(async () => (await payment.status()) === 'FAILED', 20_000);
    const { all, routing } = await timelineOf(payment.token, 1);
    expect(routing).toEqual([
      expect.objectContaining({
        decision: 'no_rail',
        railId: null,
        providerId: null,
        reason: 'no ACTIVE rail serves sandbox MOOV_MONEY XOF CI',
        skipped: [],
      }),
    ]);
    expect(all.find((entry) => entry.type === 'payment.failed')).toMatchObject({
      failureCode: 'provider_unavailable',
    });
  });
});
