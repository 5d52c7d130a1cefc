import { describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { eventually } from '@mmp/platform/testing';
import { createPayment, expectSimpleError, type CreatedPayment } from './helpers.js';
import { sessionOf } from '../support/shopper.js';

/**
 * The initiation rules of a payment, as the payer meets them through the hosted flow's API
 * (`POST /v1/checkout/sessions/{id}/pay`, which asks payments to initiate).
 */

const TTL_SECONDS = 3;

const shop = useShop('Initiation Shop', {
  // A short confirmation window and no sweeper, so the pay route meets the expiry itself.
  env: { PAYMENT_TTL_SECONDS: String(TTL_SECONDS), EXPIRY_INTERVAL_MS: '600000' },
});
const { merchant, shopper } = shop;

const pay = (payment: CreatedPayment, paymentMethod: string, phone: string) =>
  shopper('POST', `/v1/checkout/sessions/${sessionOf(payment)}/pay`, { paymentMethod, phone });
const retrieve = async (payment: CreatedPayment) =>
  (
    await merchant<{ status: string; payerPhone: string | null; paymentMethod: string }>(
      'GET',
      `/v1/payments/${payment.token}`,
    )
  ).body;

describe('initiating a payment through the hosted flow', () => {
  it('refuses a number of another operator with 400 invalid_phone, and the payer may correct it', async () => {
    const payment = await createPayment(merchant);
    // An MTN number offered as Orange Money.
    expectSimpleError(await pay(payment, 'ORANGE_MONEY', '+237670000001'), 400, 'invalid_phone');
    expectSimpleError(await pay(payment, 'MTN_MOMO', '12'), 400, 'invalid_phone');
    expect(await retrieve(payment)).toMatchObject({
      status: 'PENDING',
      payerPhone: null,
      paymentMethod: 'UNKNOWN',
    });
    const paid = await pay(payment, 'MTN_MOMO', '+237670000001');
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await retrieve(payment)).toMatchObject({ payerPhone: '+237670000001', paymentMethod: 'MTN_MOMO' });
  });

  it('refuses paying twice with 409 invalid_state and makes one order', async () => {
    const payment = await createPayment(merchant);
    // The sandbox accepts this number and never settles: the payment stays under way.
    const first = await pay(payment, 'ORANGE_MONEY', '+237690000003');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expectSimpleError(await pay(payment, 'ORANGE_MONEY', '+237690000001'), 409, 'invalid_state');
    // The payer's first choice stands.
    expect(await retrieve(payment)).toMatchObject({ payerPhone: '+237690000003' });
    const events = await eventually(async () => {
      const read = await merchant<{ status: string; events: { type: string }[] }>(
        'GET',
        `/v1/payments/${payment.token}?expand[]=events`,
      );
      return read.body.status === 'PROCESSING' && read.body.events;
    }, 10_000);
    expect(events.filter((e) => e.type === 'payment.initiated')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'payment.processing')).toHaveLength(1);
  });

  it('refuses a payment the merchant cancelled with 400 payment_cancelled', async () => {
    const payment = await createPayment(merchant);
    expect((await merchant('POST', `/v1/payments/${payment.token}/cancel`)).status).toBe(200);
    expectSimpleError(await pay(payment, 'ORANGE_MONEY', '+237690000001'), 400, 'payment_cancelled');
    expect(await retrieve(payment)).toMatchObject({ status: 'CANCELLED', payerPhone: null });
  });

  it('refuses a payment past its confirmation window with 400 payment_expired, and expires it', async () => {
    const payment = await createPayment(merchant);
    await new Promise((resolve) => setTimeout(resolve, TTL_SECONDS * 1000 + 500));
    expectSimpleError(await pay(payment, 'ORANGE_MONEY', '+237690000001'), 400, 'payment_expired');
    // Nothing executed it: the payment expires, never PROCESSING.
    const expired = await eventually(async () => {
      const verified = await merchant<{ status: string }>('GET', `/v1/payments/${payment.token}/verify`);
      return verified.body.status === 'EXPIRED' && verified.body;
    });
    expect(expired).toMatchObject({ status: 'EXPIRED', payerPhone: null });
  });
});
