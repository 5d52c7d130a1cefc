import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { startSystem, type ProjectKeys, type RunningSystem } from './support/system.js';
import { api, startWebhookEndpoint } from './support/http.js';
import { outcomeOf, paySandbox } from './support/sandbox-payments.js';

/**
 * Refunds and payouts over the real system: payments debits the balance, provider-router
 * makes a `payout.execute` order on the sandbox's payout-capable pull rail, the sandbox
 * executes it (its payout test numbers decide) and settles, and payments ends the transfer
 * and tells the merchant. Numbers: a payment or payout to +237690000001 succeeds; a payout
 * to +237690000008 fails `account_inactive` (a payment from it completes, so its refund
 * fails); +237690000009 is paid but a payout to it never settles.
 */
const SUCCESS = '+237690000001';
const PAYOUT_FAILS = '+237690000008';

let system: RunningSystem;
let project: ProjectKeys;
let receiver: Awaited<ReturnType<typeof startWebhookEndpoint>>;

beforeAll(async () => {
  system = await startSystem();
  project = await system.createProject('Refunds Shop');
  receiver = await startWebhookEndpoint(merchant(), [
    'transaction.refunded',
    'payout.completed',
    'payout.failed',
  ]);
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await system?.stop();
});

const merchant = (key?: string) => api(system.baseUrl, key ?? project.testSecretKey);

type Refund = { id: string; status: string; amount: number; failureCode: string | null };
type Payout = { id: string; status: string; failureCode: string | null };
type Balance = { balances: { currency: string; available: number; pending: number }[] };

async function available(key = project.testSecretKey, currency = 'XAF'): Promise<number> {
  const reply = await merchant(key)<Balance>('GET', '/v1/balance');
  expect(reply.status).toBe(200);
  return reply.body.balances.find((b) => b.currency === currency)?.available ?? 0;
}

/** A completed sandbox payment of `amount`, once the ledger has credited it. */
async function completed(phone = SUCCESS, amount = 5000) {
  const before = await available();
  const payment = await paySandbox(system.baseUrl, project.testSecretKey, phone, amount);
  expect((await outcomeOf(payment.read)).status).toBe('COMPLETED');
  await eventually(async () => (await available()) >= before + amount, 20_000);
  return payment.token;
}

async function refund(token: string, body: Record<string, unknown> = {}) {
  const reply = await merchant()<Refund>('POST', `/v1/payments/${token}/refunds`, body, {
    'Idempotency-Key': randomUUID(),
  });
  expect(reply.status).toBe(201);
  return reply.body;
}

async function refundEnded(token: string, id: string) {
  return eventually(async () => {
    const reply = await merchant()<Refund>('GET', `/v1/payments/${token}/refunds/${id}`);
    return reply.body.status !== 'PENDING' && reply.body;
  }, 30_000);
}

async function statusOf(token: string) {
  return (await merchant()<{ status: string }>('GET', `/v1/payments/${token}`)).body.status;
}

function payoutBody(extra: Record<string, unknown> = {}) {
  return { amount: 1000, recipient: { phone: SUCCESS }, reference: `po-${randomUUID()}`, ...extra };
}

/** The signed merchant webhook of `type` about `id`, verified with the endpoint's secret. */
async function webhook(type: string, match: (data: Record<string, unknown>) => boolean) {
  return eventually(async () => {
    for (const received of receiver.received) {
      const body = JSON.parse(received.rawBody) as { type: string; data: Record<string, unknown> };
      if (body.type !== type || !match(body.data)) continue;
      const header = String(received.headers['x-service-signature']);
      const [t, v1] = header.split(',').map((part) => part.split('=')[1]);
      const expected = createHmac('sha256', receiver.secret).update(`${t}.${received.rawBody}`).digest('hex');
      expect(v1).toBe(expected);
      return body.data;
    }
    return false;
  }, 30_000);
}

describe('refunds through the sandbox', () => {
  it('refunds a payment in full', async () => {
    const token = await completed();
    const full = await refund(token);
    expect(full.amount).toBe(5000);
    expect(await refundEnded(token, full.id)).toMatchObject({ status: 'COMPLETED' });
    await eventually(async () => (await statusOf(token)) === 'REFUNDED', 20_000);
    expect(await webhook('transaction.refunded', (d) => d.token === token)).toMatchObject({
      status: 'REFUNDED',
      refund: { id: full.id, status: 'COMPLETED' },
    });
  });

  it('two partial refunds reach REFUNDED', async () => {
    const token = await completed();
    const first = await refund(token, { amount: 2000 });
    await refundEnded(token, first.id);
    await eventually(async () => (await statusOf(token)) === 'PARTIALLY_REFUNDED', 20_000);
    const second = await refund(token);
    expect(second.amount).toBe(3000);
    await refundEnded(token, second.id);
    await eventually(async () => (await statusOf(token)) === 'REFUNDED', 20_000);
    const list = await merchant()<{ data: Refund[] }>('GET', `/v1/payments/${token}/refunds`);
    expect(list.body.data.map((r) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
  });

  it('a failed refund leaves the payment COMPLETED', async () => {
    const token = await completed(PAYOUT_FAILS);
    const failed = await refund(token);
    expect(await refundEnded(token, failed.id)).toMatchObject({
      status: 'FAILED',
      failureCode: 'account_inactive',
    });
    expect(await statusOf(token)).toBe('COMPLETED');
  });

  it('twenty concurrent refunds never refund more than the payment', async () => {
    const token = await completed();
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        merchant()(
          'POST',
          `/v1/payments/${token}/refunds`,
          { amount: 1000 },
          { 'Idempotency-Key': randomUUID() },
        ),
      ),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(5);
    expect(replies.filter((r) => r.status !== 201).every((r) => [400, 409].includes(r.status))).toBe(true);
  });
});

describe('payouts through the sandbox', () => {
  it('a payout completes over the pull rail and the merchant is told', async () => {
    await completed();
    const sent = await merchant()<Payout>('POST', '/v1/payouts', payoutBody(), {
      'Idempotency-Key': randomUUID(),
    });
    expect(sent.status).toBe(201);
    await eventually(async () => {
      const reply = await merchant()<Payout>('GET', `/v1/payouts/${sent.body.id}`);
      return reply.body.status === 'COMPLETED';
    }, 30_000);
    expect(await webhook('payout.completed', (d) => d.id === sent.body.id)).toMatchObject({
      status: 'COMPLETED',
    });
  });

  it('a payout to an inactive wallet fails and is told', async () => {
    await completed();
    const sent = await merchant()<Payout>(
      'POST',
      '/v1/payouts',
      payoutBody({ recipient: { phone: PAYOUT_FAILS } }),
    );
    expect(sent.status).toBe(201);
    expect(await webhook('payout.failed', (d) => d.id === sent.body.id)).toMatchObject({
      status: 'FAILED',
      failureCode: 'account_inactive',
    });
  });

  it('is refused before any order: balance, environment, no payout rail', async () => {
    const balance = await available();
    const over = await merchant()<{ code: string }>(
      'POST',
      '/v1/payouts',
      payoutBody({ amount: balance + 1 }),
    );
    expect(over).toMatchObject({ status: 400, body: { code: 'insufficient_available_balance' } });
    const live = await merchant(project.liveSecretKey)<{ code: string }>('POST', '/v1/payouts', payoutBody());
    expect(live).toMatchObject({ status: 403, body: { code: 'live_payouts_unavailable' } });
    const noRail = await merchant()<{ code: string }>(
      'POST',
      '/v1/payouts',
      // Burkina Faso: no rail of the sandbox environment serves it.
      payoutBody({ currency: 'XOF', recipient: { phone: '+22670123456' }, network: 'MOOV_MONEY' }),
    );
    expect(noRail).toMatchObject({ status: 409, body: { code: 'payout_rail_unavailable' } });
    expect(await available()).toBe(balance);
  });

  it('twenty concurrent payouts never spend more than the balance', async () => {
    await completed();
    const balance = await available();
    const count = Math.floor(balance / 1000);
    const replies = await Promise.all(
      Array.from({ length: count + 20 }, () => merchant()('POST', '/v1/payouts', payoutBody())),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(count);
    expect(await available()).toBe(balance - count * 1000);
  });

  it('the balance rebuilt from the event stream equals the live one', async () => {
    const rebuilt = await system.admin<{ matches: boolean }>('POST', '/v1/admin/balance/rebuild');
    expect(rebuilt.matches).toBe(true);
  });
});
