import { describe, expect, it } from 'vitest';
import {
  createPayment,
  eventually,
  execution,
  failure,
  initiated,
  merchant,
  settlement,
  timeline,
  usePaymentsHarness,
} from './support.js';

const h = usePaymentsHarness({ env: { PAYMENT_TTL_SECONDS: '1' } });
const actor = merchant();
const retrieve = (token: string) => timeline(h, token, actor);

describe('expiry', () => {
  it('expires an unconfirmed payment after its TTL, with payment.expired', async () => {
    const payment = await createPayment(h, actor);
    expect((await retrieve(payment.token)).status).toBe('PENDING');
    await eventually(async () => (await retrieve(payment.token)).status === 'EXPIRED', 5000);
    await eventually(async () => h.eventsOf(payment.id, 'payment.expired').length === 1);
    const error = await failure(
      h.checkout.initiate({ token: payment.token, paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' }),
    );
    expect(error.code).toBe('payment_expired');
    expect(error.status).toBe(400);
  });

  it('expires a PROCESSING payment too', async () => {
    const payment = await initiated(h, actor);
    await h.publish('execution.accepted', execution(payment.id));
    await eventually(async () => (await retrieve(payment.token)).status === 'EXPIRED', 5000);
  });

  it('never expires a payment that completed within its window', async () => {
    const payment = await createPayment(h, actor);
    await h.publish('settlement.received', settlement(payment.id, 'COMPLETED'));
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
