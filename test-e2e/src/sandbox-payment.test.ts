import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { startSystem, type ProjectKeys, type RunningSystem } from './support/system.js';
import { api, startWebhookReceiver } from './support/http.js';

let system: RunningSystem;
let project: ProjectKeys;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let webhookSecret: string;

beforeAll(async () => {
  system = await startSystem({ env: { PAYMENT_TTL_SECONDS: '6', EXPIRY_INTERVAL_MS: '300' } });
  project = await system.createProject('E2E Shop');
  receiver = await startWebhookReceiver();
  const endpoint = await api(system.baseUrl, project.testSecretKey)<{ secret: string }>(
    'POST',
    '/v1/webhook-endpoints',
    {
      url: receiver.url,
      enabledEvents: ['*'],
    },
  );
  expect(endpoint.status).toBe(201);
  webhookSecret = endpoint.body.secret;
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await system?.stop();
});

/** The merchant creates a payment; the shopper pays it on the hosted page's API. */
async function payWith(phone: string, paymentMethod: string) {
  const merchant = api(system.baseUrl, project.testSecretKey);
  const created = await merchant<{ token: string; paymentUrl: string; status: string }>(
    'POST',
    '/v1/payments',
    {
      amount: 5000,
      currency: 'XAF',
      description: 'T-shirt',
      reference: `order-${phone}-${Date.now()}`,
    },
  );
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('PENDING');
  const sessionId = new URL(created.body.paymentUrl).pathname.split('/').pop()!;
  expect(sessionId).toMatch(/^cs_/);
  const shopper = api(system.baseUrl);
  const paid = await shopper('POST', `/v1/checkout/sessions/${sessionId}/pay`, { paymentMethod, phone });
  expect(paid.status).toBeLessThan(300);
  return { token: created.body.token, sessionId, merchant, shopper };
}

/** Verifies the merchant webhook signature with openssl, not with the project's own code. */
function opensslSignature(secret: string, signedPayload: string): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], {
    input: signedPayload,
  }).toString();
  return out.trim().split(/\s+/).pop()!;
}

describe('a sandbox payment through the real provider path', () => {
  it('completes with the Orange Money success number and tells the merchant, signed', async () => {
    const { token, sessionId, merchant, shopper } = await payWith('+237690000001', 'ORANGE_MONEY');

    await eventually(async () => {
      const status = await shopper<{ status: string }>('GET', `/v1/checkout/sessions/${sessionId}/status`);
      return status.body.status === 'success';
    }, 20_000);

    const webhook = await eventually(async () =>
      receiver.received.find(
        (w) =>
          JSON.parse(w.rawBody).data?.token === token &&
          JSON.parse(w.rawBody).type === 'transaction.completed',
      ),
    );
    const header = String(webhook.headers['x-service-signature']);
    const timestamp = header.match(/t=(\d+)/)![1]!;
    const signatures = [...header.matchAll(/v1=([0-9a-f]+)/g)].map((m) => m[1]);
    expect(signatures).toContain(opensslSignature(webhookSecret, `${timestamp}.${webhook.rawBody}`));
    const event = JSON.parse(webhook.rawBody);
    expect(event).toMatchObject({
      type: 'transaction.completed',
      data: { token, amount: 5000, currency: 'XAF', status: 'COMPLETED' },
    });
    expect(event.id).toMatch(/^evt_/);

    const retrieved = await merchant<{ status: string; payerPhone: string; paymentMethod: string }>(
      'GET',
      `/v1/payments/${token}`,
    );
    expect(retrieved.body).toMatchObject({
      status: 'COMPLETED',
      payerPhone: '+237690000001',
      paymentMethod: 'ORANGE_MONEY',
    });
    const verified = await merchant<{ status: string }>('GET', `/v1/payments/${token}/verify`);
    expect(verified.body.status).toBe('COMPLETED');
  });

  it('completes with the MTN MoMo success number', async () => {
    const { token, merchant } = await payWith('+237670000001', 'MTN_MOMO');
    await eventually(
      async () =>
        (await merchant<{ status: string }>('GET', `/v1/payments/${token}`)).body.status === 'COMPLETED',
      20_000,
    );
  });

  it('fails with insufficient_balance and says so to the shopper and the merchant', async () => {
    const { token, sessionId, merchant, shopper } = await payWith('+237690000002', 'ORANGE_MONEY');
    await eventually(
      async () =>
        (await merchant<{ status: string }>('GET', `/v1/payments/${token}`)).body.status === 'FAILED',
      20_000,
    );
    const status = await shopper<{ status: string; failureCode?: string }>(
      'GET',
      `/v1/checkout/sessions/${sessionId}/status`,
    );
    expect(status.body).toMatchObject({ status: 'failed', failureCode: 'insufficient_balance' });
    const webhook = await eventually(async () =>
      receiver.received.find(
        (w) =>
          JSON.parse(w.rawBody).data?.token === token && JSON.parse(w.rawBody).type === 'transaction.failed',
      ),
    );
    // The merchant learns why from the webhook itself and from the payment's timeline.
    expect(JSON.parse(webhook.rawBody).data).toMatchObject({
      status: 'FAILED',
      failureCode: 'insufficient_balance',
      failureReason: expect.any(String),
    });
    const retrieved = await merchant<{ status: string; events: Record<string, unknown>[] }>(
      'GET',
      `/v1/payments/${token}?expand[]=events`,
    );
    expect(retrieved.body.events.find((e) => e.type === 'payment.failed')).toMatchObject({
      failureCode: 'insufficient_balance',
      failureReason: expect.any(String),
    });
    expect(retrieved.body).not.toHaveProperty('failureCode');
  });

  it('expires when the payer never confirms', async () => {
    const { token, merchant } = await payWith('+237690000003', 'ORANGE_MONEY');
    await eventually(
      async () =>
        (await merchant<{ status: string }>('GET', `/v1/payments/${token}`)).body.status === 'EXPIRED',
      20_000,
    );
    await eventually(async () =>
      receiver.received.find(
        (w) =>
          JSON.parse(w.rawBody).data?.token === token && JSON.parse(w.rawBody).type === 'transaction.expired',
      ),
    );
  });
});
