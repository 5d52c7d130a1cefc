import { describe, expect, it } from 'vitest';
import {
  RoutingDecisionData,
  type Network,
  type OrderCreatedData,
  type PaymentSnapshot,
} from '@mmp/protocol';
import { startRouter } from './harness.js';

const COOLDOWN_MS = 400;
const h = await startRouter({
  BREAKER_FAILURES: '2',
  BREAKER_WINDOW_MS: '60000',
  BREAKER_COOLDOWN_MS: String(COOLDOWN_MS),
  ORDER_TTL_SECONDS: '600',
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const { routed, orderOf } = h;

/** Each test routes in its own country, so rails of other tests are never eligible. */
async function railsIn(country: string, priorities: number[]) {
  const provider = await h.createProvider();
  const rails = [];
  for (const priority of priorities)
    rails.push(await h.activeRail(provider.id, { countries: [country], priority }));
  return { provider, rails };
}

/** The routing.decided events of a payment, validated against the bus contract. */
async function routingDecisions(paymentId: string, count = 1) {
  const events = await h.waitFor('routing.decided', paymentId, count);
  return events.map((event) => RoutingDecisionData.parse(event.data));
}

describe('routing a payment', () => {
  it('picks the ACTIVE rail with the lowest priority number and sends the exact payment.execute body', async () => {
    const { provider, rails } = await railsIn('GA', [20, 5]);
    const before = Date.now();
    const payment = await routed('GA');
    const order = await orderOf(payment.id);
    expect(order).toMatchObject({
      paymentId: payment.id,
      railId: rails[1]!.id,
      providerId: provider.id,
      transport: 'webhook',
    });
    expect(order.orderKey).toMatch(/^pexec_/);
    expect(order.payload).toEqual({
      protocol_version: '1',
      type: 'payment.execute',
      idempotency_key: order.orderKey,
      amount: '5000',
      currency: 'XAF',
      network: 'ORANGE_MONEY',
      country: 'GA',
      payee: { msisdn: '+237690000001' },
      transaction_ref: payment.token,
      timestamp: expect.any(Number),
    });
    const expiresIn = Date.parse(order.expiresAt) - before;
    expect(expiresIn).toBeGreaterThan(590_000);
    expect(expiresIn).toBeLessThan(610_000);
    const { order: stored } = await h.status(payment.id);
    expect(stored).toMatchObject({ orderKey: order.orderKey, status: 'ROUTED', railId: rails[1]!.id });
    expect(stored!.decisions[0]!.reason).toContain('priority 5');
    expect(await routingDecisions(payment.id)).toEqual([
      {
        paymentId: payment.id,
        orderKey: order.orderKey,
        decision: 'routed',
        railId: rails[1]!.id,
        providerId: provider.id,
        reason: stored!.decisions[0]!.reason,
        skipped: [],
      },
    ]);
    const [event] = h.events('routing.decided', payment.id);
    expect(event).toMatchObject({ projectId: payment.projectId, livemode: false });
  });

  it('reuses the same order and key when payment.initiated comes again', async () => {
    await railsIn('TD', [1]);
    const payment = await routed('TD');
    const first = await orderOf(payment.id);
    await h.initiate(payment, { network: 'ORANGE_MONEY', phone: '+237690000001', country: 'TD' });
    await sleep(300);
    expect(h.events('order.created', payment.id)).toHaveLength(1);
    expect(h.events('routing.decided', payment.id)).toHaveLength(1);
    expect((await h.status(payment.id)).order!.orderKey).toBe(first.orderKey);
  });

  it.each<[string, Partial<PaymentSnapshot>, Network]>([
    ['another environment', { livemode: true }, 'ORANGE_MONEY'],
    ['another network', {}, 'WAVE'],
    ['another currency', { currency: 'XOF' }, 'ORANGE_MONEY'],
  ])('fails with provider_unavailable when no rail serves %s', async (_name, overrides, network) => {
    await railsIn('BJ', [1]);
    const payment = await routed('BJ', overrides, network);
    const [failed] = await h.waitFor('execution.failed', payment.id);
    expect(failed!.data).toMatchObject({ paymentId: payment.id, code: 'provider_unavailable', railId: null });
    expect(failed!.data).toMatchObject({ reason: expect.stringContaining('no ACTIVE rail') });
    expect(h.events('order.created', payment.id)).toHaveLength(0);
    const [decided] = await routingDecisions(payment.id);
    expect(decided).toMatchObject({ decision: 'no_rail', railId: null, providerId: null, skipped: [] });
    expect(decided!.orderKey).toMatch(/^pexec_/);
    expect(decided!.reason).toContain('no ACTIVE rail');
  });

  it('ignores rails that are not ACTIVE', async () => {
    const provider = await h.createProvider();
    await h.createRail(provider.id, h.webhookRail({ countries: ['TG'] }));
    const payment = await routed('TG');
    const [failed] = await h.waitFor('execution.failed', payment.id);
    expect(failed!.data).toMatchObject({ code: 'provider_unavailable' });
  });
});

describe('delivery outcomes', () => {
  it('delivery.accepted -> execution.accepted', async () => {
    await railsIn('ML', [1]);
    const payment = await routed('ML');
    const order = await orderOf(payment.id);
    await h.outcome('delivery.accepted', order, 'ACCEPTED');
    const [accepted] = await h.waitFor('execution.accepted', payment.id);
    expect(accepted!.data).toMatchObject({
      paymentId: payment.id,
      orderKey: order.orderKey,
      railId: order.railId,
      code: null,
    });
    expect((await h.status(payment.id)).order!.status).toBe('ACCEPTED');
  });

  it('a REJECTED ack with a payer error code fails the payment with that code, without failover', async () => {
    await railsIn('BF', [1, 2]);
    const payment = await routed('BF');
    const order = await orderOf(payment.id);
    await h.outcome('delivery.rejected', order, 'REJECTED', 'insufficient_balance');
    const [failed] = await h.waitFor('execution.failed', payment.id);
    expect(failed!.data).toMatchObject({ code: 'insufficient_balance', orderKey: order.orderKey });
    expect(h.events('order.created', payment.id)).toHaveLength(1);
    // A payer's error is not a routing decision: the timeline has the first choice only.
    expect(h.events('routing.decided', payment.id)).toHaveLength(1);
  });

  it('fails over to the next rail with the same order key, then fails with provider_timeout after a TIMEOUT', async () => {
    const { rails } = await railsIn('NE', [1, 2]);
    const payment = await routed('NE');
    const first = await orderOf(payment.id);
    expect(first.railId).toBe(rails[0]!.id);
    await h.outcome('delivery.failed', first, 'HTTP_ERROR', 'HTTP 500');
    const second = await orderOf(payment.id, 2);
    expect(second).toMatchObject({ orderKey: first.orderKey, railId: rails[1]!.id, payload: first.payload });
    // A late outcome of the first rail changes nothing.
    await h.outcome('delivery.accepted', first, 'ACCEPTED');
    await h.outcome('delivery.failed', second, 'TIMEOUT', 'no answer in 10 s');
    const [failed] = await h.waitFor('execution.failed', payment.id);
    expect(failed!.data).toMatchObject({ code: 'provider_timeout', railId: rails[1]!.id });
    expect(h.events('execution.accepted', payment.id)).toHaveLength(0);
    const decisions = (await h.status(payment.id)).order!.decisions.map((d) => d.action);
    expect(decisions).toEqual(['routed', 'failover', 'no_rail']);
    const routing = await routingDecisions(payment.id, 3);
    expect(routing.map(({ decision, railId }) => [decision, railId])).toEqual([
      ['routed', rails[0]!.id],
      ['failover', rails[1]!.id],
      ['no_rail', null],
    ]);
    expect(routing[1]!.reason).toContain('delivery.failed on rail');
    expect(routing[1]!.reason).toContain('HTTP 500');
    expect(routing[1]!.skipped).toEqual([{ railId: rails[0]!.id, reason: 'already tried' }]);
    expect(routing[2]!.reason).toContain('TIMEOUT');
    expect(routing[2]!.skipped).toEqual([
      { railId: rails[0]!.id, reason: 'already tried' },
      { railId: rails[1]!.id, reason: 'already tried' },
    ]);
  });

  it('fails with provider_unavailable when the last rail fails without a timeout', async () => {
    await railsIn('GN', [1]);
    const payment = await routed('GN');
    const order = await orderOf(payment.id);
    await h.outcome('delivery.rejected', order, 'REJECTED', 'maintenance window');
    const [failed] = await h.waitFor('execution.failed', payment.id);
    expect(failed!.data).toMatchObject({ code: 'provider_unavailable' });
  });

  it('delivery.expired -> provider_timeout', async () => {
    await railsIn('CG', [1, 2]);
    const payment = await routed('CG');
    const order = await orderOf(payment.id);
    await h.outcome('delivery.expired', order, 'EXPIRED');
    const [failed] = await h.waitFor('execution.failed', payment.id);
    expect(failed!.data).toMatchObject({ code: 'provider_timeout' });
    expect(h.events('order.created', payment.id)).toHaveLength(1);
  });
});

describe('circuit breaker', () => {
  it('opens after repeated failures, lets one trial through when half-open, reopens on failure and closes on success', async () => {
    const { rails } = await railsIn('CF', [1, 2]);
    const [a, b] = [rails[0]!.id, rails[1]!.id];
    const fail = (order: OrderCreatedData) =>
      h.outcome('delivery.failed', order, 'UNREACHABLE', 'ECONNREFUSED');
    const accept = (order: OrderCreatedData) => h.outcome('delivery.accepted', order, 'ACCEPTED');
    const route = async () => orderOf((await routed('CF')).id);

    for (let i = 0; i < 2; i += 1) {
      const order = await route();
      expect(order.railId).toBe(a);
      await fail(order);
      expect((await orderOf(order.paymentId, 2)).railId).toBe(b);
    }
    // Open: A is skipped, and the decision says why.
    const whileOpen = await route();
    expect(whileOpen.railId).toBe(b);
    expect((await h.status(whileOpen.paymentId)).order!.decisions[0]!.reason).toContain(
      `${a} circuit breaker open`,
    );
    expect(await routingDecisions(whileOpen.paymentId)).toMatchObject([
      { decision: 'routed', railId: b, skipped: [{ railId: a, reason: 'circuit breaker open' }] },
    ]);

    await sleep(COOLDOWN_MS + 50);
    const trial = await route();
    expect(trial.railId).toBe(a);
    expect((await routingDecisions(trial.paymentId))[0]!.reason).toContain('half-open trial');
    const besideTrial = await route();
    expect(besideTrial.railId).toBe(b);
    expect((await routingDecisions(besideTrial.paymentId))[0]!.skipped).toEqual([
      { railId: a, reason: 'circuit breaker half-open, trial in flight' },
    ]);
    await fail(trial);
    await orderOf(trial.paymentId, 2);
    expect((await route()).railId).toBe(b);

    await sleep(COOLDOWN_MS + 50);
    const secondTrial = await route();
    expect(secondTrial.railId).toBe(a);
    await accept(secondTrial);
    await h.waitFor('execution.accepted', secondTrial.paymentId);
    expect((await route()).railId).toBe(a);
    expect((await route()).railId).toBe(a);
  });
});
