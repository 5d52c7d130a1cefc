import { describe, expect, it } from 'vitest';
import { answerOrders, eventually, failOrders, signedWith } from '@mmp/platform/testing';
import { pushSettlement } from '@mmp/provider-kit';
import { routingHarness } from './support/routing-harness.js';

/**
 * Issue 5's failover and circuit breaker over real HTTP and NATS: merchant and payer call the
 * gateway, provider-router routes, provider-delivery posts signed orders to real HTTPS
 * endpoints. A first rail answering 500 or REJECTED fails over to the second, and the
 * payment completes on its settlement; a rail failing again and again is skipped by its
 * circuit breaker, then closed again by a half-open success; no eligible rail fails the
 * payment. Each routing decision and its reason is read where the merchant sees it, on the
 * payment's timeline (`expand[]=events`), and on provider-router's order record.
 */
const COOLDOWN_MS = 8000;
const h = routingHarness({
  BREAKER_FAILURES: '2',
  BREAKER_WINDOW_MS: '60000',
  BREAKER_COOLDOWN_MS: String(COOLDOWN_MS),
});
const { newProvider, activeRail, pay, timelineOf, orderOf, decisionsOf } = h;

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
      h.endpoint.on(first, firstAnswer);
      h.endpoint.on(second, answerOrders('ACCEPTED'));
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
      const [toA] = h.endpoint.orders(first);
      const orderKey = String(toA!.body.idempotency_key);
      expect(orderKey).toMatch(/^pexec_/);
      expect(signedWith(railA.secret, toA!)).toBe(true);
      const toB = h.endpoint.orders(second, orderKey);
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
        baseUrl: `${h.system.baseUrl}/v1`,
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
    h.endpoint.on('/flaky', failOrders(500));
    h.endpoint.on('/steady', answerOrders('ACCEPTED'));
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
    const flakyOrders = h.endpoint.orders('/flaky').length;

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
    expect(h.endpoint.orders('/flaky')).toHaveLength(flakyOrders);

    // The flaky rail recovers; after the cooldown one trial order goes to it and succeeds.
    h.endpoint.on('/flaky', answerOrders('ACCEPTED'));
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
    expect(h.endpoint.orders('/flaky')).toHaveLength(flakyOrders + 2);
  }, 60_000);
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
