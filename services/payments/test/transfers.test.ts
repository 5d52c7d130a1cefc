import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  Balance,
  MerchantWebhookEvent,
  balanceApi,
  Payment,
  Payout,
  Refund,
  type MerchantActor,
} from '@mmp/protocol';
import { merchantVerifies, startReceiver } from './receiver.js';
import { eventually, initiated, merchant, settlement, usePaymentsHarness } from './support.js';

// The merchant's receiver listens on loopback: the development switch is on.
const h = usePaymentsHarness({ env: { ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true' } });

beforeAll(async () => {
  await h.serveRouter();
});

const SCOPES = ['payments:write', 'refunds:write', 'payouts:write', 'balance:read', 'webhooks:write'];
/** An Orange Money number of Senegal, for XOF. */
const XOF_PHONE = '+221771234567';
const actorOf = (overrides: Partial<MerchantActor> = {}) => merchant({ scopes: SCOPES, ...overrides });

async function balanceOf(actor: MerchantActor) {
  return Balance.parse((await h.call('balance', {}, actor)).body).balances;
}

async function retrieve(actor: MerchantActor, token: string) {
  return Payment.parse(
    (await h.call('retrieve', { params: { token }, query: { expand: 'refunds' } }, actor)).body,
  );
}

/** A 5000 XAF payment the settlement completed, once the ledger has credited it. */
/** A completed payment of 5,000 in `currency`, once the ledger has credited it. */
async function completedPayment(actor: MerchantActor, currency: 'XAF' | 'XOF' = 'XAF') {
  const payment =
    currency === 'XAF'
      ? await initiated(h, actor)
      : await initiated(h, actor, { currency }, { paymentMethod: 'ORANGE_MONEY', phone: XOF_PHONE });
  const availableNow = async () =>
    (await balanceOf(actor)).find((b) => b.currency === currency)?.available ?? 0;
  const before = await availableNow();
  await h.publish('settlement.received', settlement(payment.id, 'COMPLETED', { currency }));
  await eventually(async () => (await availableNow()) === before + 5000);
  return payment;
}

async function refund(actor: MerchantActor, token: string, body: Record<string, unknown> = {}, key?: string) {
  const reply = await h.call(
    'refunds.create',
    { params: { token }, body, headers: key ? { 'Idempotency-Key': key } : {} },
    actor,
  );
  expect(reply.status).toBe(201);
  return Refund.parse(reply.body);
}

async function payout(actor: MerchantActor, body: Record<string, unknown> = {}) {
  const reply = await h.call(
    'payouts.create',
    {
      body: { amount: 1000, recipient: { phone: '+237690000002' }, reference: `po-${randomUUID()}`, ...body },
    },
    actor,
  );
  expect(reply.status).toBe(201);
  return Payout.parse(reply.body);
}

function settled(
  transferId: string,
  kind: 'refund' | 'payout',
  status: 'COMPLETED' | 'FAILED',
  failureCode?: string,
) {
  return h.publish('transfer.settled', {
    transferId,
    kind,
    orderKey: `pexo_${randomUUID().replace(/-/g, '')}`,
    railId: 'rail_1',
    status,
    failureCode: failureCode ?? null,
    settledAt: new Date().toISOString(),
  });
}

describe('refunds', () => {
  it('refunds in two parts until REFUNDED, each part out of the balance at once', async () => {
    const actor = actorOf();
    const payment = await completedPayment(actor);
    const first = await refund(actor, payment.token, { amount: 2000, reason: 'one item back' });
    expect(first).toMatchObject({ status: 'PENDING', amount: 2000, paymentToken: payment.token });
    expect(first.id).toMatch(/^rf_/);
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 3000, pending: 2000 }]);

    await settled(first.id, 'refund', 'COMPLETED');
    await eventually(async () => (await retrieve(actor, payment.token)).status === 'PARTIALLY_REFUNDED');
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 3000, pending: 0 }]);

    // No amount: all that remains.
    const rest = await refund(actor, payment.token);
    expect(rest.amount).toBe(3000);
    await settled(rest.id, 'refund', 'COMPLETED');
    await eventually(async () => (await retrieve(actor, payment.token)).status === 'REFUNDED');
    const refunded = await retrieve(actor, payment.token);
    expect(refunded.refunds?.map((r) => [r.amount, r.status]).sort()).toEqual([
      [2000, 'COMPLETED'],
      [3000, 'COMPLETED'],
    ]);
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 0, pending: 0 }]);

    const more = await h.callError('refunds.create', { params: { token: payment.token }, body: {} }, actor);
    expect(more.code).toBe('invalid_state');
    const listed = (await h.call('refunds.list', { params: { token: payment.token } }, actor)).body as {
      data: unknown[];
    };
    expect(listed.data).toHaveLength(2);
    const one = await h.call(
      'refunds.retrieve',
      { params: { token: payment.token, refundId: first.id } },
      actor,
    );
    expect(Refund.parse(one.body)).toMatchObject({ id: first.id, status: 'COMPLETED' });
  });

  it('a failed refund leaves the payment COMPLETED and gives the amount back', async () => {
    const actor = actorOf();
    const payment = await completedPayment(actor);
    const failed = await refund(actor, payment.token);
    await settled(failed.id, 'refund', 'FAILED', 'account_inactive');
    await eventually(async () => {
      const reply = await h.call(
        'refunds.retrieve',
        { params: { token: payment.token, refundId: failed.id } },
        actor,
      );
      return Refund.parse(reply.body).status === 'FAILED';
    });
    const after = await h.call(
      'refunds.retrieve',
      { params: { token: payment.token, refundId: failed.id } },
      actor,
    );
    expect(Refund.parse(after.body)).toMatchObject({ failureCode: 'account_inactive' });
    expect((await retrieve(actor, payment.token)).status).toBe('COMPLETED');
    await eventually(async () => (await balanceOf(actor))[0]?.pending === 0);
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 5000, pending: 0 }]);
  });

  it('refuses what the payment cannot give: a refund of a pending payment, above what remains, bad input', async () => {
    const actor = actorOf();
    const pending = await initiated(h, actor);
    expect(
      (await h.callError('refunds.create', { params: { token: pending.token }, body: {} }, actor)).code,
    ).toBe('invalid_state');
    const payment = await completedPayment(actor);
    const above = await h.callError(
      'refunds.create',
      { params: { token: payment.token }, body: { amount: 5001 } },
      actor,
    );
    expect(above).toMatchObject({ code: 'invalid_amount', fields: [{ field: 'amount' }] });
    const bad = await h.callError(
      'refunds.create',
      { params: { token: payment.token }, body: { amount: 0, reason: '', extra: 1 } },
      actor,
    );
    expect(bad.code).toBe('validation_error');
    expect(bad.fields?.map((f) => f.field).sort()).toEqual(['amount', 'extra', 'reason']);
    const missing = await h.callError('refunds.create', { params: { token: 'pay_nope' }, body: {} }, actor);
    expect(missing.code).toBe('resource_not_found');
  });

  it('refunds a payment the moment it completed, before the ledger consumer may have credited it', async () => {
    const actor = actorOf();
    const payment = await initiated(h, actor);
    await h.publish('settlement.received', settlement(payment.id, 'COMPLETED'));
    await eventually(async () => (await retrieve(actor, payment.token)).status === 'COMPLETED');
    const at = await refund(actor, payment.token);
    expect(at.amount).toBe(5000);
    await eventually(async () => (await balanceOf(actor))[0]?.pending === 5000);
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 0, pending: 5000 }]);
  });

  it('replays the first answer for the same Idempotency-Key', async () => {
    const actor = actorOf();
    const payment = await completedPayment(actor);
    const key = randomUUID();
    const first = await refund(actor, payment.token, { amount: 1000 }, key);
    const again = await refund(actor, payment.token, { amount: 1000 }, key);
    expect(again.id).toBe(first.id);
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 4000, pending: 1000 }]);
  });

  it('twenty concurrent refunds never refund more than the payment', async () => {
    const actor = actorOf();
    const payment = await completedPayment(actor);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        h.call('refunds.create', { params: { token: payment.token }, body: { amount: 1000 } }, actor),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(5);
    for (const lost of results.filter((r) => r.status === 'rejected')) {
      expect(['invalid_amount', 'invalid_state', 'insufficient_available_balance']).toContain(
        (lost as PromiseRejectedResult).reason.code,
      );
    }
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 0, pending: 5000 }]);
  });
});

describe('payouts', () => {
  it('pays out from the balance and completes', async () => {
    const actor = actorOf();
    await completedPayment(actor);
    const sent = await payout(actor, { amount: 1500, metadata: { batch: '7' } });
    expect(sent).toMatchObject({
      status: 'PENDING',
      network: 'ORANGE_MONEY',
      recipient: { phone: '+237690000002' },
    });
    expect(sent.id).toMatch(/^po_/);
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 3500, pending: 1500 }]);
    await settled(sent.id, 'payout', 'COMPLETED');
    await eventually(async () => {
      const reply = await h.call('payouts.retrieve', { params: { payoutId: sent.id } }, actor);
      return Payout.parse(reply.body).status === 'COMPLETED';
    });
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 3500, pending: 0 }]);
    const list = (await h.call('payouts.list', { query: { limit: '1' } }, actor)).body as {
      data: { id: string }[];
      meta: { total: number };
    };
    expect(list.data.map((p) => p.id)).toEqual([sent.id]);
    expect(list.meta.total).toBe(1);
  });

  it('a failed payout makes its amount available again', async () => {
    const actor = actorOf();
    await completedPayment(actor);
    const sent = await payout(actor, { amount: 5000 });
    await settled(sent.id, 'payout', 'FAILED', 'account_inactive');
    // The account gives the amount back, then the payout's record ends: both, soon.
    const payoutNow = async () =>
      Payout.parse((await h.call('payouts.retrieve', { params: { payoutId: sent.id } }, actor)).body);
    await eventually(async () => (await payoutNow()).status === 'FAILED');
    expect(await payoutNow()).toMatchObject({ status: 'FAILED', failureCode: 'account_inactive' });
    expect((await balanceOf(actor))[0]?.available).toBe(5000);
  });

  it('refuses before any order: balance, no payout rail, live without live rails, a reused reference', async () => {
    const actor = actorOf();
    await completedPayment(actor);
    const over = await h.callError(
      'payouts.create',
      { body: { amount: 5001, recipient: { phone: '+237690000002' }, reference: 'r-over' } },
      actor,
    );
    expect(over.code).toBe('insufficient_available_balance');
    await payout(actor, { reference: 'r-1' });
    const reused = await h.callError(
      'payouts.create',
      { body: { amount: 100, recipient: { phone: '+237690000002' }, reference: 'r-1' } },
      actor,
    );
    expect(reused.code).toBe('duplicate_transaction');
    try {
      h.payoutRoute.available = false;
      const noRail = await h.callError(
        'payouts.create',
        { body: { amount: 100, recipient: { phone: '+237690000002' }, reference: 'r-2' } },
        actor,
      );
      expect(noRail.code).toBe('payout_rail_unavailable');
      h.payoutRoute.anyRailOfEnvironment = false;
      const live = await h.callError(
        'payouts.create',
        { body: { amount: 100, recipient: { phone: '+237690000002' }, reference: 'r-3' } },
        actorOf({ livemode: true }),
      );
      expect(live.code).toBe('live_payouts_unavailable');
    } finally {
      h.payoutRoute.available = true;
      h.payoutRoute.anyRailOfEnvironment = true;
    }
    // Refused payouts leave no record and no debit.
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 4000, pending: 1000 }]);
    const bad = await h.callError('payouts.create', { body: { amount: -1, currency: 'EUR' } }, actor);
    expect(bad.fields?.map((f) => f.field).sort()).toEqual(['amount', 'currency', 'recipient', 'reference']);
  });

  it('lists payouts newest first with page and cursor pagination and the list errors of payments', async () => {
    const actor = actorOf();
    await completedPayment(actor);
    const sent = [];
    for (let i = 0; i < 3; i += 1) sent.push(await payout(actor, { amount: 100 }));
    type Page = { data: { id: string }[]; has_more: boolean; meta: { total: number; page?: number } };
    const first = (await h.call('payouts.list', { query: { limit: '2' } }, actor)).body as Page;
    expect(first.data.map((p) => p.id)).toEqual([sent[2]!.id, sent[1]!.id]);
    expect(first).toMatchObject({ has_more: true, meta: { total: 3, page: 1 } });
    const after = (
      await h.call('payouts.list', { query: { limit: '2', starting_after: sent[1]!.id } }, actor)
    ).body as Page;
    expect(after.data.map((p) => p.id)).toEqual([sent[0]!.id]);
    expect(after.has_more).toBe(false);
    const before = (await h.call('payouts.list', { query: { ending_before: sent[0]!.id } }, actor))
      .body as Page;
    expect(before.data.map((p) => p.id)).toEqual([sent[2]!.id, sent[1]!.id]);
    const unknown = await h.callError('payouts.list', { query: { starting_after: 'po_unknown' } }, actor);
    expect(unknown).toMatchObject({ code: 'invalid_request', fields: [{ field: 'starting_after' }] });
    const bad = await h.callError('payouts.list', { query: { limit: '0', status: 'DONE' } }, actor);
    expect(bad.fields?.map((f) => f.field).sort()).toEqual(['limit', 'status']);
    const deep = await h.callError('payouts.list', { query: { page: '501' } }, actor);
    expect(deep).toMatchObject({ code: 'invalid_request', fields: [{ field: 'page' }] });
    const other = await h.callError('payouts.retrieve', { params: { payoutId: sent[0]!.id } }, actorOf());
    expect(other.code).toBe('resource_not_found');
  });

  it('twenty concurrent payouts never spend more than the balance', async () => {
    const actor = actorOf();
    await completedPayment(actor);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        h.call(
          'payouts.create',
          { body: { amount: 1000, recipient: { phone: '+237690000002' }, reference: `c-${i}` } },
          actor,
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    for (const lost of results.filter((r) => r.status === 'rejected')) {
      expect((lost as PromiseRejectedResult).reason.code).toBe('insufficient_available_balance');
    }
    expect(await balanceOf(actor)).toEqual([{ currency: 'XAF', available: 0, pending: 5000 }]);
    const listed = (await h.call('payouts.list', {}, actor)).body as { data: unknown[] };
    expect(listed.data).toHaveLength(5);
  });
});

describe('merchant webhooks', () => {
  it('signs transaction.refunded with the refund, and payout.completed and payout.failed with the payout', async () => {
    const actor = actorOf();
    const receiver = await startReceiver();
    try {
      const endpoint = (
        await h.call(
          'webhook-endpoints.create',
          {
            body: {
              url: receiver.url,
              enabledEvents: ['transaction.refunded', 'payout.completed', 'payout.failed'],
            },
          },
          actor,
        )
      ).body as { secret: string };
      const payment = await completedPayment(actor);
      const part = await refund(actor, payment.token, { amount: 1000 });
      await settled(part.id, 'refund', 'COMPLETED');
      const ok = await payout(actor, { amount: 1000 });
      await settled(ok.id, 'payout', 'COMPLETED');
      const ko = await payout(actor, { amount: 1000 });
      await settled(ko.id, 'payout', 'FAILED', 'account_inactive');
      await eventually(async () => receiver.received.length >= 3);
      for (const received of receiver.received) {
        expect(
          merchantVerifies(endpoint.secret, received.headers['x-service-signature'] as string, received.raw),
        ).toBe(true);
        MerchantWebhookEvent.parse(received.body);
      }
      const byType = Object.fromEntries(receiver.received.map((r) => [r.body.type as string, r.body.data]));
      expect(byType['transaction.refunded']).toMatchObject({
        token: payment.token,
        status: 'PARTIALLY_REFUNDED',
        refund: { id: part.id, amount: 1000, status: 'COMPLETED' },
      });
      expect(byType['payout.completed']).toMatchObject({ id: ok.id, status: 'COMPLETED' });
      expect(byType['payout.failed']).toMatchObject({
        id: ko.id,
        status: 'FAILED',
        failureCode: 'account_inactive',
      });
    } finally {
      await receiver.close();
    }
  });
});

describe('balance rebuild', () => {
  it('rebuilds from the event stream the figures kept live, in both environments and both currencies', async () => {
    const actor = actorOf();
    const payment = await completedPayment(actor);
    const part = await refund(actor, payment.token, { amount: 700 });
    await settled(part.id, 'refund', 'FAILED', 'account_inactive');
    await payout(actor, { amount: 300 });
    await eventually(async () => (await balanceOf(actor))[0]?.pending === 300);
    const live = actorOf({ projectId: actor.projectId, livemode: true });
    const livePayment = await completedPayment(live);
    await settled((await refund(live, livePayment.token)).id, 'refund', 'COMPLETED');
    await eventually(async () => (await retrieve(live, livePayment.token)).status === 'REFUNDED');
    // The other currency, in both environments: a payout and a partial refund.
    await completedPayment(actor, 'XOF');
    await settled(
      (await payout(actor, { amount: 1200, currency: 'XOF', recipient: { phone: XOF_PHONE } })).id,
      'payout',
      'COMPLETED',
    );
    const liveXof = await completedPayment(live, 'XOF');
    await refund(live, liveXof.token, { amount: 2000 });
    await eventually(async () => {
      const xof = (await balanceOf(live)).find((b) => b.currency === 'XOF');
      return xof?.available === 3000 && xof.pending === 2000;
    });
    const reply = await h.gatewayCall(balanceApi.rebuild, {}, { kind: 'admin' });
    expect(reply.body).toMatchObject({ matches: true, mismatches: [] });
    expect((reply.body as { accounts: number }).accounts).toBeGreaterThanOrEqual(4);
  });
});
