import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SERVICE_ACTOR,
  createPayment,
  eventually,
  merchant,
  startPaymentsHarness,
  type PaymentsHarness,
} from './support.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness({ PAYMENT_TTL_SECONDS: '1' });
});
afterAll(async () => {
  await h?.close();
});

const actor = merchant();
const retrieve = async (token: string) =>
  (await h.call('retrieve', { params: { token } }, actor)).body as { status: string };

describe('expiry', () => {
  it('expires an unconfirmed payment after its TTL, with payment.expired', async () => {
    const payment = await createPayment(h, actor);
    expect((await retrieve(payment.token)).status).toBe('PENDING');
    await eventually(async () => (await retrieve(payment.token)).status === 'EXPIRED', 5000);
    await eventually(async () => h.eventsOf(payment.id, 'payment.expired').length === 1);
    const error = await h.callError(
      'initiate',
      { body: { token: payment.token, paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' } },
      SERVICE_ACTOR,
    );
    expect(error.code).toBe('payment_expired');
    expect(error.status).toBe(400);
  });

  it('expires a PROCESSING payment too', async () => {
    const payment = await createPayment(h, actor);
    await h.call(
      'initiate',
      { body: { token: payment.token, paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' } },
      SERVICE_ACTOR,
    );
    await h.publish('execution.accepted', {
      paymentId: payment.id,
      orderKey: 'k',
      railId: 'r',
      code: null,
      reason: null,
    });
    await eventually(async () => (await retrieve(payment.token)).status === 'EXPIRED', 5000);
  });

  it('never expires a payment that completed within its window', async () => {
    const payment = await createPayment(h, actor);
    await h.publish('settlement.received', {
      settlementId: `set_${payment.id}`,
      paymentId: payment.id,
      orderKey: 'k',
      providerId: 'p',
      status: 'COMPLETED',
      amount: 5000,
      currency: 'XAF',
      network: 'ORANGE_MONEY',
      settledAt: new Date().toISOString(),
    });
    await eventually(async () => (await retrieve(payment.token)).status === 'COMPLETED');
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect((await retrieve(payment.token)).status).toBe('COMPLETED');
    expect(h.eventsOf(payment.id, 'payment.expired')).toHaveLength(0);
  });

  it('expires payments whose deadline passed while the service was down', async () => {
    await h.restart({ EXPIRY_INTERVAL_MS: '3600000' });
    const payment = await createPayment(h, actor);
    await h.service.stop();
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await h.restart({ EXPIRY_INTERVAL_MS: '100' });
    await eventually(async () => (await retrieve(payment.token)).status === 'EXPIRED', 5000);
  });

  it('verify expires a payment past its TTL even before the loop does', async () => {
    await h.restart({ EXPIRY_INTERVAL_MS: '3600000' });
    const payment = await createPayment(h, actor);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // The loop's first pass ran at start; the next one is an hour away.
    expect((await retrieve(payment.token)).status).toBe('PENDING');
    const verified = await h.call('verify', { params: { token: payment.token } }, actor);
    expect(verified.body).toMatchObject({ status: 'EXPIRED' });
    await h.restart({ EXPIRY_INTERVAL_MS: '100' });
  });
});
