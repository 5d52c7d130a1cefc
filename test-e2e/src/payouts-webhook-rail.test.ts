import { describe, expect, it } from 'vitest';
import { answerOrders, eventually, signedWith } from '@mmp/platform/testing';
import { pushSettlement } from '@mmp/provider-kit';
import { api } from './support/http.js';
import { routingHarness } from './support/routing-harness.js';

/**
 * A payout over a provider's webhook rail (HTTPS, signed), the sandbox left out: the rail
 * takes the payment that funds the balance, then the `payout.execute` order (`pexo_…`),
 * acks it `payout.ack`, and its SettlementEvent, correlated by the order key, completes the
 * payout.
 */
const h = routingHarness();
const route = { network: 'ORANGE_MONEY', country: 'SN', currency: 'XOF' };
const PHONE = '+221771234567';

async function settle(
  provider: { id: string; signingSecret: string },
  orderKey: string,
  ref: string,
  amount: string,
) {
  return pushSettlement({
    baseUrl: `${h.system.baseUrl}/v1`,
    providerId: provider.id,
    signingSecret: provider.signingSecret,
    event: {
      protocol_version: '1',
      idempotency_key: orderKey,
      transaction_ref: ref,
      amount,
      currency: 'XOF',
      status: 'COMPLETED',
      network: 'ORANGE_MONEY',
      settled_at: new Date().toISOString(),
    },
  });
}

describe('a payout over a webhook rail', () => {
  it('is delivered signed as payout.execute, acked, and completed by its settlement', async () => {
    h.endpoint.on('/payout-rail', answerOrders('ACCEPTED'));
    const provider = await h.newProvider('Payout provider');
    const rail = await h.activeRail(provider, '/payout-rail', route, 1);
    const portal = api(h.system.baseUrl, provider.apiKey);
    expect(
      (await portal('PATCH', `/v1/provider/rails/${rail.id}`, { supportsPayout: true })).body,
    ).toMatchObject({ supportsPayout: true, status: 'ACTIVE' });

    // A payment funds the balance.
    const payment = await h.pay(route, PHONE);
    const paymentOrder = await eventually(async () => h.endpoint.orders('/payout-rail')[0], 20_000);
    expect(
      await settle(provider, String(paymentOrder.body.idempotency_key), payment.token, '5000'),
    ).toMatchObject({ status: 200 });
    await eventually(async () => (await payment.status()) === 'COMPLETED', 20_000);

    const merchant = api(h.system.baseUrl, h.project.testSecretKey);
    await eventually(async () => {
      const balance = await merchant<{ balances: { currency: string; available: number }[] }>(
        'GET',
        '/v1/balance',
      );
      return balance.body.balances.some((b) => b.currency === 'XOF' && b.available === 5000);
    }, 20_000);
    const sent = await merchant<{ id: string; status: string }>('POST', '/v1/payouts', {
      amount: 3000,
      currency: 'XOF',
      recipient: { phone: PHONE },
      reference: 'webhook-rail-payout',
    });
    expect(sent.status).toBe(201);

    const order = await eventually(
      async () => h.endpoint.callsTo('/payout-rail').find((call) => call.event === 'payout.execute'),
      20_000,
    );
    expect(signedWith(rail.secret, order)).toBe(true);
    expect(order.body).toMatchObject({
      type: 'payout.execute',
      amount: '3000',
      currency: 'XOF',
      payee: { msisdn: PHONE },
      transaction_ref: sent.body.id,
    });
    const orderKey = String(order.body.idempotency_key);
    expect(orderKey).toMatch(/^pexo_/);
    expect(await settle(provider, orderKey, `prov-${sent.body.id}`, '3000')).toMatchObject({
      status: 200,
      body: { matched: true, orderKey },
    });
    await eventually(async () => {
      const reply = await merchant<{ status: string }>('GET', `/v1/payouts/${sent.body.id}`);
      return reply.body.status === 'COMPLETED';
    }, 20_000);
    const balance = await merchant<{ balances: { currency: string; available: number; pending: number }[] }>(
      'GET',
      '/v1/balance',
    );
    expect(balance.body.balances.find((b) => b.currency === 'XOF')).toEqual({
      currency: 'XOF',
      available: 2000,
      pending: 0,
    });
  });
});
