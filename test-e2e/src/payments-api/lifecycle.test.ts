import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { eventually } from '@mmp/platform/testing';
import { startWebhookReceiver } from '../support/http.js';
import { createPayment, expectSimpleError } from './helpers.js';
import { payOnHostedPage } from '../support/shopper.js';

type Payment = { token: string; status: string; events?: { type: string }[] };

const shop = useShop('Lifecycle Shop', {
  env: { PAYMENT_TTL_SECONDS: '2', EXPIRY_INTERVAL_MS: '600000', WEBHOOK_POLL_INTERVAL_MS: '50' },
});
const { merchant } = shop;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // A short confirmation window and a sweeper that never runs in this file: only verify expires.
  expect((await merchant('POST', '/v1/webhook-endpoints', { url: receiver.url })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await receiver?.close();
});

const webhooksFor = (token: string) =>
  receiver.received
    .map((w) => JSON.parse(w.rawBody) as { id: string; type: string; data: { token: string } })
    .filter((e) => e.data.token === token);

describe('payment lifecycle through the merchant API', () => {
  it('verify expires a payment past its confirmation window and tells the merchant', async () => {
    const payment = await createPayment(merchant);
    const first = await merchant<Payment>('GET', `/v1/payments/${payment.token}/verify`);
    expect(first.body.status).toBe('PENDING');
    const expired = await eventually(
      async () => {
        const verified = await merchant<Payment>('GET', `/v1/payments/${payment.token}/verify`);
        return verified.body.status === 'EXPIRED' ? verified : undefined;
      },
      6_000,
      200,
    );
    expect(expired.status).toBe(200);
    const retrieved = await merchant<Payment>('GET', `/v1/payments/${payment.token}?expand[]=events`);
    expect(retrieved.body.status).toBe('EXPIRED');
    expect(retrieved.body.events!.map((e) => e.type)).toEqual(['payment.created', 'payment.expired']);
    const listed = await merchant<{ data: Payment[] }>('GET', '/v1/payments?status=EXPIRED');
    expect(listed.body.data.map((p) => p.token)).toContain(payment.token);
    expectSimpleError(await merchant('POST', `/v1/payments/${payment.token}/cancel`), 409, 'invalid_state');
    const events = await eventually(
      async () => webhooksFor(payment.token).length > 0 && webhooksFor(payment.token),
    );
    expect(events.map((e) => e.type)).toEqual(['transaction.expired']);
  });

  it('refuses a merchant cancel once the payer has initiated the payment', async () => {
    const payment = await createPayment(merchant);
    await payOnHostedPage(shop.system.baseUrl, payment, '+237690000003');
    const refused = expectSimpleError(
      await merchant('POST', `/v1/payments/${payment.token}/cancel`),
      409,
      'invalid_state',
    );
    expect(refused.message).toMatch(/initiated/);
    const current = await merchant<Payment & { paymentMethod: string; payerPhone: string }>(
      'GET',
      `/v1/payments/${payment.token}`,
    );
    expect(current.body).toMatchObject({ paymentMethod: 'ORANGE_MONEY', payerPhone: '+237690000003' });
    expect(['PENDING', 'PROCESSING']).toContain(current.body.status);
  });

  it('sends one transaction.cancelled per cancelled payment, with a stable event id', async () => {
    const payment = await createPayment(merchant);
    expect((await merchant('POST', `/v1/payments/${payment.token}/cancel`)).status).toBe(200);
    const [event] = await eventually(
      async () => webhooksFor(payment.token).length > 0 && webhooksFor(payment.token),
    );
    expect(event).toMatchObject({
      type: 'transaction.cancelled',
      data: { token: payment.token, status: 'CANCELLED' },
    });
    expect(event!.id).toMatch(/^evt_/);
    // A second cancel is refused and sends nothing more.
    expectSimpleError(await merchant('POST', `/v1/payments/${payment.token}/cancel`), 409, 'invalid_state');
    const other = await createPayment(merchant);
    await merchant('POST', `/v1/payments/${other.token}/cancel`);
    await eventually(async () => webhooksFor(other.token).length > 0);
    expect(webhooksFor(payment.token)).toHaveLength(1);
  });
});
