import { beforeAll, describe, expect, it } from 'vitest';
import { answerOrders, eventually } from '@mmp/platform/testing';
import { api } from './support/http.js';
import { routingHarness, type Provider, type RailRoute } from './support/routing-harness.js';

/**
 * Issue 5's choice of rail over real HTTPS: a lower priority number wins even for the younger
 * rail, and rails of another network, currency, country or environment are never chosen,
 * whatever their priority. Each choice is read on the payment's timeline and on
 * provider-router's order record.
 */
const h = routingHarness();
const { newProvider, testedRail, activeRail, pay, timelineOf, orderOf } = h;

describe('which rail gets the order', () => {
  it('a rail with a lower priority number wins even though it was created after the other', async () => {
    const route = { network: 'ORANGE_MONEY', country: 'SN', currency: 'XOF' };
    h.endpoint.on('/older-priority-5', answerOrders('ACCEPTED'));
    h.endpoint.on('/younger-priority-1', answerOrders('ACCEPTED'));
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
    expect(await orderOf(payment.id)).toMatchObject({ railId: younger.id });
    expect(h.endpoint.orders('/younger-priority-1')).toHaveLength(1);
    expect(h.endpoint.orders('/older-priority-5')).toEqual([]);
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
        h.endpoint.on(path, answerOrders('ACCEPTED'));
        if (railRoute.environment === 'live') {
          // A live rail is refused activation until certified; it stays TESTED, never chosen.
          const live = await testedRail(decoyProvider, path, railRoute, 0);
          const portal = api(h.system.baseUrl, decoyProvider.apiKey);
          const refused = await portal('POST', `/v1/provider/rails/${live.id}/activate`);
          expect(refused).toMatchObject({ status: 409, body: { error: { code: 'invalid_state' } } });
        } else {
          await activeRail(decoyProvider, path, railRoute, 0);
        }
      }
    });

    const decoyOrders = () => Object.keys(decoys).flatMap((path) => h.endpoint.orders(path));

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
      h.endpoint.on('/fits', answerOrders('ACCEPTED'));
      const fitsProvider = await newProvider('Fits');
      const fits = await activeRail(fitsProvider, '/fits', route, 9);

      const payment = await pay(route, phone);
      await eventually(async () => (await payment.status()) === 'PROCESSING', 20_000);
      expect((await timelineOf(payment.token, 1)).routing).toMatchObject([
        { decision: 'routed', railId: fits.id, providerId: fitsProvider.id, skipped: [] },
      ]);
      expect(await orderOf(payment.id)).toMatchObject({ railId: fits.id });
      expect(h.endpoint.orders('/fits')).toHaveLength(1);
      expect(decoyOrders()).toEqual([]);
    });

    it('a live payment on that route is never sent to the sandbox rail that fits it in every other way', async () => {
      const payment = await pay(route, phone, h.project.liveSecretKey);
      await eventually(async () => (await payment.status()) === 'FAILED', 20_000);
      const { all, routing } = await timelineOf(payment.token, 1, h.project.liveSecretKey);
      expect(routing).toMatchObject([
        { decision: 'no_rail', railId: null, reason: 'no ACTIVE rail serves live MTN_MOMO XOF CI' },
      ]);
      expect(all.find((entry) => entry.type === 'payment.failed')).toMatchObject({
        failureCode: 'provider_unavailable',
      });
      expect(h.endpoint.orders('/fits')).toHaveLength(1);
      expect(decoyOrders()).toEqual([]);
    });
  });
});
