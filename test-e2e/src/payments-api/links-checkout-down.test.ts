import { describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { eventually } from '@mmp/platform/testing';
import { api } from '../support/http.js';
import { sessionOf } from '../support/shopper.js';
import { createPayment, payAndSettle } from './helpers.js';

/**
 * Payments never calls links-checkout: it mints the hosted session's id itself and announces
 * the payment, and links-checkout makes the session from that event whenever it runs.
 */

const shop = useShop('No Checkout Shop', { external: ['links-checkout'] });
const { merchant } = shop;

describe('POST /v1/payments while links-checkout is down', () => {
  it('creates the payment at once, and its hosted page opens once links-checkout is back', async () => {
    const body = { amount: 2500, reference: 'ORDER-DOWN', description: 'Order' };
    const key = { 'idempotency-key': 'order-down-attempt' };
    const created = await merchant<{ id: string; token: string; paymentUrl: string }>(
      'POST',
      '/v1/payments',
      body,
      key,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.paymentUrl).toMatch(new RegExp(`^${shop.system.baseUrl}/checkout/cs_[A-Za-z0-9]+$`));
    expect((await merchant('POST', '/v1/payments', body, key)).body).toEqual(created.body);
    const other = await createPayment(merchant, { amount: 1500 });

    const checkout = shop.system.spawnService('links-checkout');
    await checkout.waitReady();
    const shopper = api(shop.system.baseUrl);
    const sessionId = sessionOf(created.body);
    // Made from payment.created, the merchant named from shop.project.updated: both read from the
    // stream's start by a service that was not there when they were published.
    const session = await eventually(async () => {
      const read = await shopper<Record<string, unknown>>('GET', `/v1/checkout/sessions/${sessionId}`);
      return read.status === 200 && read.body.merchantName === 'No Checkout Shop' && read.body;
    });
    expect(session).toMatchObject({
      id: sessionId,
      paymentId: created.body.id,
      amount: 2500,
      description: 'Order',
      status: 'idle',
      merchantName: 'No Checkout Shop',
    });
    const page = await fetch(created.body.paymentUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('No Checkout Shop');
    await payAndSettle(shop.system.baseUrl, merchant, other, '+237690000001', 'COMPLETED');
  }, 60_000);
});
