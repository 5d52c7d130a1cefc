import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { startSystem, type ProjectKeys, type RunningSystem } from './support/system.js';
import { api, startWebhookEndpoint } from './support/http.js';
import { payOnHostedPage, sessionOf } from './support/shopper.js';

/** How long the sandbox takes to settle "any other number"; the test numbers settle at once. */
const OTHER_NUMBER_DELAY_MS = 1500;
let system: RunningSystem;
let project: ProjectKeys;
let receiver: Awaited<ReturnType<typeof startWebhookEndpoint>>;

beforeAll(async () => {
  system = await startSystem({
    env: {
      PAYMENT_TTL_SECONDS: '6',
      EXPIRY_INTERVAL_MS: '300',
      SANDBOX_DELAY_MS: String(OTHER_NUMBER_DELAY_MS),
    },
  });
  project = await system.createProject('E2E Shop');
  receiver = await startWebhookEndpoint(api(system.baseUrl, project.testSecretKey), ['*']);
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await system?.stop();
});

/** The merchant creates a payment; the shopper pays it on the hosted page's API. */
async function payWith(phone: string, paymentMethod: string, currency = 'XAF') {
  const merchant = api(system.baseUrl, project.testSecretKey);
  const created = await merchant<{
    id: string;
    token: string;
    paymentUrl: string;
    status: string;
    createdAt: string;
  }>('POST', '/v1/payments', {
    amount: 5000,
    currency,
    description: 'T-shirt',
    reference: `order-${phone}-${Date.now()}`,
  });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('PENDING');
  const sessionId = sessionOf(created.body);
  expect(sessionId).toMatch(/^cs_/);
  const shopper = api(system.baseUrl);
  await payOnHostedPage(system.baseUrl, created.body, phone, paymentMethod);
  return {
    id: created.body.id,
    token: created.body.token,
    date: created.body.createdAt.slice(0, 10),
    sessionId,
    merchant,
    shopper,
  };
}

/** Verifies the merchant webhook signature with openssl, not with the project's own code. */
function opensslSignature(secret: string, signedPayload: string): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], {
    input: signedPayload,
  }).toString();
  return out.trim().split(/\s+/).pop()!;
}

type Reconciliation = {
  matched: { paymentId: string; settlements: { settlementId: string; status: string }[] }[];
  orderWithoutSettlement: { paymentId: string; status: string }[];
};

/**
 * The sandbox provider's reconciliation of a day, as an operator reads it on the admin API:
 * provider-router's own record of the orders it handed the sandbox and of the settlements
 * the sandbox posted to the settlement webhook.
 */
async function sandboxReconciliation(date: string): Promise<Reconciliation> {
  const providers = await system.admin<{ data: { id: string; name: string }[] }>(
    'GET',
    '/v1/admin/providers',
  );
  const sandbox = providers.data.find((provider) => provider.name === 'sandbox')!;
  return system.admin<Reconciliation>(
    'GET',
    `/v1/admin/reconciliation?providerId=${sandbox.id}&date=${date}&livemode=false`,
  );
}

/** The settlements the sandbox posted to the settlement webhook for a payment's order. */
async function settlementsOf(payment: { id: string; date: string }) {
  const report = await sandboxReconciliation(payment.date);
  return report.matched.find((entry) => entry.paymentId === payment.id)?.settlements ?? [];
}

describe('a sandbox payment through the real provider path', () => {
  it('completes with the Orange Money success number and tells the merchant, signed', async () => {
    const payment = await payWith('+237690000001', 'ORANGE_MONEY');
    const { token, sessionId, merchant, shopper } = payment;

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
    expect(signatures).toContain(opensslSignature(receiver.secret, `${timestamp}.${webhook.rawBody}`));
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
    // What completed it: the sandbox's signed COMPLETED settlement, posted to the settlement webhook.
    expect(await settlementsOf(payment)).toMatchObject([{ status: 'COMPLETED' }]);
  });

  it('completes with the MTN MoMo success number, through the settlement webhook', async () => {
    const payment = await payWith('+237670000001', 'MTN_MOMO');
    await eventually(
      async () =>
        (await payment.merchant<{ status: string }>('GET', `/v1/payments/${payment.token}`)).body.status ===
        'COMPLETED',
      20_000,
    );
    expect(await settlementsOf(payment)).toMatchObject([{ status: 'COMPLETED' }]);
  });

  it('completes any other number after a short delay, through the settlement webhook', async () => {
    const payment = await payWith('+237690000077', 'ORANGE_MONEY');
    const timeline = await eventually(async () => {
      const read = await payment.merchant<{ status: string; events: { type: string; createdAt: string }[] }>(
        'GET',
        `/v1/payments/${payment.token}?expand[]=events`,
      );
      return read.body.status === 'COMPLETED' && read.body.events;
    }, 20_000);
    // Accepted at once, settled only after the sandbox's delay for numbers it does not know.
    const at = (type: string) => Date.parse(timeline.find((entry) => entry.type === type)!.createdAt);
    expect(at('payment.completed') - at('payment.processing')).toBeGreaterThanOrEqual(
      OTHER_NUMBER_DELAY_MS - 250,
    );
    expect(await settlementsOf(payment)).toMatchObject([{ status: 'COMPLETED' }]);
    await eventually(async () =>
      receiver.received.find(
        (w) =>
          JSON.parse(w.rawBody).data?.token === payment.token &&
          JSON.parse(w.rawBody).type === 'transaction.completed',
      ),
    );
  });

  it('fails with insufficient_balance and says so to the shopper and the merchant', async () => {
    const payment = await payWith('+237690000002', 'ORANGE_MONEY');
    const { token, sessionId, merchant, shopper } = payment;
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
      failureMessage: expect.any(String),
    });
    const retrieved = await merchant<{ status: string; events: Record<string, unknown>[] }>(
      'GET',
      `/v1/payments/${token}?expand[]=events`,
    );
    expect(retrieved.body.events.find((e) => e.type === 'payment.failed')).toMatchObject({
      failureCode: 'insufficient_balance',
      failureMessage: expect.any(String),
    });
    // And from the payment itself.
    expect(retrieved.body).toMatchObject({
      failureCode: 'insufficient_balance',
      failureMessage: "The payer's wallet balance is too low.",
    });
    // Refused in its ack, the order expects no settlement and none came.
    const report = await sandboxReconciliation(payment.date);
    expect(report.matched.filter((entry) => entry.paymentId === payment.id)).toEqual([]);
    expect(report.orderWithoutSettlement.filter((entry) => entry.paymentId === payment.id)).toEqual([]);
  });

  // Every payer code a sandbox number gives, on retrieve, on the list and in the webhook.
  it.each([
    ['+237690000004', 'pin_error', 'The payer entered a wrong PIN.'],
    ['+237690000005', 'transaction_limit', "The payment exceeds the payer's daily or monthly limit."],
    ['+237690000006', 'account_inactive', "The payer's wallet is inactive."],
    ['+237690000007', 'invalid_phone', 'The phone number does not belong to the chosen operator.'],
  ])(
    '%s fails the payment with %s, said on the payment itself',
    async (phone, failureCode, failureMessage) => {
      const { token, merchant } = await payWith(phone, 'ORANGE_MONEY');
      const retrieved = await eventually(async () => {
        const answer = await merchant<{ status: string }>('GET', `/v1/payments/${token}`);
        return answer.body.status === 'FAILED' ? answer.body : undefined;
      }, 20_000);
      expect(retrieved).toMatchObject({ failureCode, failureMessage });
      const list = await merchant<{ data: { token: string }[] }>(
        'GET',
        '/v1/payments?status=FAILED&limit=100',
      );
      expect(list.body.data.find((item) => item.token === token)).toMatchObject({
        failureCode,
        failureMessage,
      });
      const webhook = await eventually(async () =>
        receiver.received.find(
          (w) =>
            JSON.parse(w.rawBody).data?.token === token &&
            JSON.parse(w.rawBody).type === 'transaction.failed',
        ),
      );
      expect(JSON.parse(webhook.rawBody).data).toMatchObject({ failureCode, failureMessage });
    },
  );

  it('in XOF, its own number fails the payment with insufficient_balance', async () => {
    const { token, merchant } = await payWith('+2250700000002', 'ORANGE_MONEY', 'XOF');
    const retrieved = await eventually(async () => {
      const answer = await merchant<{ status: string }>('GET', `/v1/payments/${token}`);
      return answer.body.status === 'FAILED' ? answer.body : undefined;
    }, 20_000);
    expect(retrieved).toMatchObject({
      currency: 'XOF',
      failureCode: 'insufficient_balance',
      failureMessage: "The payer's wallet balance is too low.",
    });
  });

  it('expires when the payer never confirms, and the sandbox never settles it', async () => {
    const payment = await payWith('+237690000003', 'ORANGE_MONEY');
    const { token, merchant } = payment;
    await eventually(
      async () =>
        (await merchant<{ status: string }>('GET', `/v1/payments/${token}`)).body.status === 'EXPIRED',
      20_000,
    );
    expect((await merchant('GET', `/v1/payments/${token}`)).body).toMatchObject({
      failureCode: 'payment_expired',
      failureMessage: expect.any(String),
    });
    await eventually(async () =>
      receiver.received.find(
        (w) =>
          JSON.parse(w.rawBody).data?.token === token && JSON.parse(w.rawBody).type === 'transaction.expired',
      ),
    );
    const report = await sandboxReconciliation(payment.date);
    expect(report.matched.filter((entry) => entry.paymentId === payment.id)).toEqual([]);
    expect(report.orderWithoutSettlement.filter((entry) => entry.paymentId === payment.id)).toMatchObject([
      { status: 'ACCEPTED' },
    ]);
  });
});
