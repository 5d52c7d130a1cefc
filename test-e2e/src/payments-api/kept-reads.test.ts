import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { startWebhookEndpoint } from '../support/http.js';
import { useShop } from '../support/shop.js';
import { payOnHostedPage } from '../support/shopper.js';
import { createPayment } from './helpers.js';

/**
 * The gateway answers a merchant's repeated read of a payment from the reply it kept, until
 * payments tells it the payment changed. A merchant polling never sees a payment older than
 * its own last write, the payer's last step, or the webhook it was just sent.
 */
const shop = useShop('Kept Reads Shop', { env: { SANDBOX_DELAY_MS: '300' } });
const { merchant } = shop;
let receiver: Awaited<ReturnType<typeof startWebhookEndpoint>>;
/** What the merchant read in its webhook handler, right as each webhook arrived. */
const readOnArrival: { token: string; type: string; status: string }[] = [];

beforeAll(async () => {
  receiver = await startWebhookEndpoint(merchant, ['*']);
  // A merchant that reads the payment as soon as a webhook names it.
  receiver.received.push = (...webhooks) => {
    for (const webhook of webhooks) {
      const event = JSON.parse(webhook.rawBody) as { type: string; data: { token?: string } };
      const token = event.data.token;
      if (!token) continue;
      void merchant<{ status: string }>('GET', `/v1/payments/${token}`).then((read) =>
        readOnArrival.push({ token, type: event.type, status: read.body.status }),
      );
    }
    return Array.prototype.push.apply(receiver.received, webhooks);
  };
});

afterAll(async () => {
  await receiver?.close();
});

type Read = { status: string; payerPhone: string | null; paymentMethod: string };
const read = async (token: string) => (await merchant<Read>('GET', `/v1/payments/${token}`)).body;

describe('a merchant reading a payment again and again', () => {
  it('reads its own cancel on the very next read, every time', async () => {
    for (let round = 0; round < 15; round += 1) {
      const payment = await createPayment(merchant, { amount: 1000 + round });
      expect((await read(payment.token)).status).toBe('PENDING');
      expect((await read(payment.token)).status).toBe('PENDING');
      const cancelled = await merchant<{ status: string }>('POST', `/v1/payments/${payment.token}/cancel`);
      expect(cancelled.body.status).toBe('CANCELLED');
      expect((await read(payment.token)).status).toBe('CANCELLED');
    }
  });

  it('reads the payer’s choice as soon as the hosted page answered it, then each move', async () => {
    const payment = await createPayment(merchant, { amount: 2500 });
    expect(await read(payment.token)).toMatchObject({ status: 'PENDING', payerPhone: null });
    await read(payment.token);
    await payOnHostedPage(shop.system.baseUrl, payment, '+237690000077', 'ORANGE_MONEY');
    expect(await read(payment.token)).toMatchObject({
      payerPhone: '+237690000077',
      paymentMethod: 'ORANGE_MONEY',
    });
    await eventually(async () => (await read(payment.token)).status === 'PROCESSING', 20_000);
    await eventually(async () => (await read(payment.token)).status === 'COMPLETED', 20_000);
  });

  it('reads the outcome a webhook announces when the webhook arrives', async () => {
    const payment = await createPayment(merchant, { amount: 3100 });
    await payOnHostedPage(shop.system.baseUrl, payment, '+237690000077', 'ORANGE_MONEY');
    // Polled while the sandbox holds it, so the gateway keeps a reply of it unfinished.
    for (let poll = 0; poll < 5; poll += 1) expect((await read(payment.token)).status).not.toBe('COMPLETED');
    const completed = await eventually(
      async () =>
        readOnArrival.find((seen) => seen.token === payment.token && seen.type === 'transaction.completed'),
      20_000,
    );
    expect(completed.status).toBe('COMPLETED');
  });
});
