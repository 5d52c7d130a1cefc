import { describe, expect, it } from 'vitest';
import { ReconciliationReport, hexHmac, providersAdminApi } from '@mmp/protocol';
import { openRouterDb } from '../src/store/db.js';
import { ADMIN, paymentSnapshot, startRouter } from './harness.js';

const h = await startRouter({ ORDER_TTL_SECONDS: '1', SETTLEMENT_CLOCK_SKEW_SECONDS: '60' });
const db = openRouterDb(h.running.context.store);
const provider = await h.createProvider('Settling Co');
await h.activeRail(provider.id, { countries: ['SN'] });

async function order(overrides: Parameters<typeof paymentSnapshot>[0] = {}) {
  const payment = paymentSnapshot(overrides);
  await h.initiate(payment, { network: 'ORANGE_MONEY', phone: '+221770000001', country: 'SN' });
  return { payment, order: await h.orderOf(payment.id) };
}

const reconcile = (query: Record<string, string>) =>
  h.call(providersAdminApi.reconciliation, { query }, ADMIN);

let sequence = 0;
function event(orderKey: string, overrides: Record<string, unknown> = {}) {
  sequence += 1;
  return {
    protocol_version: '1',
    idempotency_key: orderKey,
    transaction_ref: `OM-${sequence}`,
    amount: '5000',
    currency: 'XAF',
    status: 'COMPLETED',
    network: 'ORANGE_MONEY',
    settled_at: new Date().toISOString(),
    ...overrides,
  };
}

describe('settlement responses', () => {
  it('200: a valid COMPLETED event is stored with its raw body and emitted as settlement.received', async () => {
    const { payment, order: o } = await order();
    const body = event(o.orderKey);
    const raw = JSON.stringify(body, null, 2);
    const reply = await h.settle(provider.id, provider.signingSecret, undefined, { raw });
    expect(reply).toMatchObject({
      status: 200,
      body: { received: true, matched: true, orderKey: o.orderKey, status: 'COMPLETED' },
    });
    const [received] = await h.waitFor('settlement.received', payment.id);
    expect(received!.data).toEqual({
      settlementId: (reply.body as { settlementId: string }).settlementId,
      paymentId: payment.id,
      orderKey: o.orderKey,
      providerId: provider.id,
      status: 'COMPLETED',
      amount: 5000,
      currency: 'XAF',
      network: 'ORANGE_MONEY',
      settledAt: body.settled_at,
      failureCode: null,
    });
    const stored = await db.settlements.findOne({
      _id: (reply.body as { settlementId: string }).settlementId,
    });
    expect(stored!.rawBody).toBe(raw);
    expect((await h.status(payment.id)).settlement).toEqual(received!.data);
  });

  it('accepts "5000.00" and correlates by transaction_ref when the key is the provider\'s own', async () => {
    const { payment } = await order();
    const reply = await h.settle(
      provider.id,
      provider.signingSecret,
      event('prov-key-1', { transaction_ref: payment.token, amount: '5000.00', status: 'FAILED' }),
    );
    expect(reply.body).toMatchObject({ matched: true, status: 'FAILED' });
    await h.waitFor('settlement.received', payment.id);
  });

  it('PENDING is stored but emits nothing: the payment stays PROCESSING', async () => {
    const { payment, order: o } = await order();
    const reply = await h.settle(
      provider.id,
      provider.signingSecret,
      event(o.orderKey, { status: 'PENDING' }),
    );
    expect(reply.body).toMatchObject({ received: true, matched: true, status: 'PENDING' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.events('settlement.received', payment.id)).toHaveLength(0);
  });

  it('200 and stored as unmatched when no order matches, with no event', async () => {
    const reply = await h.settle(
      provider.id,
      provider.signingSecret,
      event('pexec_unknownkey000000000000', { transaction_ref: 'nothing-here' }),
    );
    expect(reply.body).toMatchObject({ received: true, matched: false, orderKey: null });
    const stored = await db.settlements.findOne({ idempotencyKey: 'pexec_unknownkey000000000000' });
    expect(stored).toMatchObject({ orderKey: null, livemode: null });
  });

  it("treats another provider's order as unmatched", async () => {
    const other = await h.createProvider('Other');
    const { order: o } = await order();
    const reply = await h.settle(other.id, other.signingSecret, event(o.orderKey));
    expect(reply.body).toMatchObject({ matched: false });
  });

  it('403 on a wrong, missing or re-serialised signature and for an unknown provider, before parsing', async () => {
    const body = event('pexec_x');
    const raw = JSON.stringify(body, null, 1);
    const cases = [
      await h.settleFailure(provider.id, provider.signingSecret, body, {
        signature: hexHmac('wrong-secret', JSON.stringify(body)),
      }),
      await h.settleFailure(provider.id, provider.signingSecret, body, { signature: '' }),
      await h.settleFailure(provider.id, provider.signingSecret, body, {
        raw,
        signature: hexHmac(provider.signingSecret, JSON.stringify(body)),
      }),
      await h.settleFailure('prv_doesnotexist', provider.signingSecret, body),
      await h.settleFailure(provider.id, provider.signingSecret, undefined, {
        raw: '{not json',
        signature: 'ab'.repeat(32),
      }),
    ];
    for (const error of cases) expect(error).toMatchObject({ status: 403, code: 'signature_invalid' });
  });

  it('422 naming the body for a correctly signed body that is not JSON', async () => {
    const error = await h.settleFailure(provider.id, provider.signingSecret, undefined, {
      raw: '{"protocol_version": "1",',
    });
    expect(error).toMatchObject({
      status: 422,
      code: 'validation_error',
      fields: [{ field: 'body', message: 'body is not valid JSON' }],
    });
    for (const raw of ['[]', 'null', '"COMPLETED"', '42']) {
      expect(await h.settleFailure(provider.id, provider.signingSecret, undefined, { raw })).toMatchObject({
        status: 422,
        fields: [{ field: 'protocol_version' }],
      });
    }
  });

  it('422 lists every invalid field at once, unknown fields included', async () => {
    const error = await h.settleFailure(provider.id, provider.signingSecret, {
      protocol_version: 1,
      idempotency_key: '',
      transaction_ref: 'x',
      amount: 5000,
      currency: 'xaf',
      status: 'DONE',
      settled_at: '31/01/2025',
      fee: '10',
    });
    expect(error).toMatchObject({ status: 422, code: 'validation_error' });
    expect(error.fields!.map((f) => f.field).sort()).toEqual(
      [
        'protocol_version',
        'idempotency_key',
        'amount',
        'currency',
        'status',
        'network',
        'settled_at',
        'fee',
      ].sort(),
    );
  });

  it('409 for a repeated idempotency_key, ignored', async () => {
    const { payment, order: o } = await order();
    await h.settle(provider.id, provider.signingSecret, event(o.orderKey));
    const error = await h.settleFailure(
      provider.id,
      provider.signingSecret,
      event(o.orderKey, { status: 'FAILED' }),
    );
    expect(error).toMatchObject({ status: 409, code: 'duplicate_event' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.events('settlement.received', payment.id)).toHaveLength(1);
  });

  it('422 naming amount for cents, and currency for another currency; a corrected event is then accepted', async () => {
    const { payment, order: o } = await order();
    const cents = await h.settleFailure(
      provider.id,
      provider.signingSecret,
      event(o.orderKey, { amount: '500000' }),
    );
    expect(cents).toMatchObject({ status: 422, code: 'validation_error', fields: [{ field: 'amount' }] });
    const currency = await h.settleFailure(
      provider.id,
      provider.signingSecret,
      event(o.orderKey, { currency: 'XOF' }),
    );
    expect(currency).toMatchObject({ status: 422, fields: [{ field: 'currency' }] });
    expect(await h.settle(provider.id, provider.signingSecret, event(o.orderKey))).toMatchObject({
      status: 200,
    });
    await h.waitFor('settlement.received', payment.id);
  });
});

describe('one outcome per order', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('keeps a second final settlement with a new key for reconciliation and never applies it', async () => {
    const { payment, order: o } = await order();
    const first = await h.settle(
      provider.id,
      provider.signingSecret,
      event(o.orderKey, { status: 'FAILED' }),
    );
    const [applied] = await h.waitFor('settlement.received', payment.id);
    // The provider changes its mind under its own key, correlated by our transaction_ref.
    const second = await h.settle(
      provider.id,
      provider.signingSecret,
      event('prov-second-1', { transaction_ref: payment.token, status: 'COMPLETED' }),
    );
    expect(second.body).toMatchObject({
      received: true,
      matched: true,
      orderKey: o.orderKey,
      status: 'COMPLETED',
    });
    await sleep(300);
    expect(h.events('settlement.received', payment.id)).toEqual([applied]);
    expect((await h.status(payment.id)).settlement).toMatchObject({ status: 'FAILED' });
    const stored = await db.settlements.findOne({ idempotencyKey: 'prov-second-1' });
    expect(stored).toMatchObject({
      orderKey: o.orderKey,
      secondOutcome: {
        appliedSettlementId: (first.body as { settlementId: string }).settlementId,
        appliedStatus: 'FAILED',
      },
    });
    expect(stored!.outcomeOf).toBeUndefined();

    const date = new Date().toISOString().slice(0, 10);
    const report = ReconciliationReport.parse(
      (await reconcile({ providerId: provider.id, date, livemode: 'false' })).body,
    );
    expect(report.secondOutcome).toContainEqual(
      expect.objectContaining({
        settlementId: stored!._id,
        orderKey: o.orderKey,
        idempotencyKey: 'prov-second-1',
        status: 'COMPLETED',
        appliedStatus: 'FAILED',
      }),
    );
  });

  it('applies exactly one of two different settlements racing for the same order', async () => {
    const { payment, order: o } = await order();
    const replies = await Promise.all([
      h.settle(provider.id, provider.signingSecret, event(o.orderKey, { status: 'COMPLETED' })),
      h.settle(
        provider.id,
        provider.signingSecret,
        event('prov-race-1', { transaction_ref: payment.token, status: 'FAILED' }),
      ),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual([200, 200]);
    await h.waitFor('settlement.received', payment.id);
    await sleep(300);
    expect(h.events('settlement.received', payment.id)).toHaveLength(1);
    const stored = await db.settlements.find({ orderKey: o.orderKey });
    expect(stored.filter((settlement) => settlement.outcomeOf === o.orderKey)).toHaveLength(1);
    expect(stored.filter((settlement) => settlement.secondOutcome)).toHaveLength(1);
  });

  it('lets a PENDING settlement precede the outcome', async () => {
    const { payment, order: o } = await order();
    await h.settle(
      provider.id,
      provider.signingSecret,
      event('prov-pending-1', { transaction_ref: payment.token, status: 'PENDING' }),
    );
    await h.settle(provider.id, provider.signingSecret, event(o.orderKey));
    const [received] = await h.waitFor('settlement.received', payment.id);
    expect(received!.data).toMatchObject({ status: 'COMPLETED' });
  });
});

describe('settled_at', () => {
  const minutes = (n: number) => n * 60_000;

  it('422 naming settled_at when it lies before the order was created, beyond the clock skew', async () => {
    const { payment, order: o } = await order();
    const created = await db.orders.findOne({ _id: o.orderKey });
    const before = new Date(Date.parse(created!.createdAt) - minutes(5)).toISOString();
    const error = await h.settleFailure(
      provider.id,
      provider.signingSecret,
      event(o.orderKey, { settled_at: before }),
    );
    expect(error).toMatchObject({ status: 422, code: 'validation_error', fields: [{ field: 'settled_at' }] });
    expect(error.fields![0]!.message).toContain('before the order was created');
    expect(await db.settlements.findOne({ idempotencyKey: o.orderKey })).toBeNull();
    // Within the skew (60 s here) it is taken: the provider's clock may lag ours a little.
    const lagging = new Date(Date.parse(created!.createdAt) - 30_000).toISOString();
    expect(
      await h.settle(provider.id, provider.signingSecret, event(o.orderKey, { settled_at: lagging })),
    ).toMatchObject({
      status: 200,
    });
    await h.waitFor('settlement.received', payment.id);
  });

  it('422 naming settled_at when it lies in the future beyond the clock skew, matched or not', async () => {
    const { order: o } = await order();
    const future = new Date(Date.now() + minutes(10)).toISOString();
    for (const key of [o.orderKey, 'pexec_nothing00000000000000000']) {
      const error = await h.settleFailure(
        provider.id,
        provider.signingSecret,
        event(key, { settled_at: future, transaction_ref: `future-${key}` }),
      );
      expect(error).toMatchObject({ status: 422, fields: [{ field: 'settled_at' }] });
      expect(error.fields![0]!.message).toContain('in the future');
    }
    const soon = new Date(Date.now() + 30_000).toISOString();
    expect(
      await h.settle(provider.id, provider.signingSecret, event(o.orderKey, { settled_at: soon })),
    ).toMatchObject({
      status: 200,
    });
  });

  it('takes an old settled_at for a settlement that matches no order (nothing to compare it with)', async () => {
    const reply = await h.settle(
      provider.id,
      provider.signingSecret,
      event('pexec_oldstray000000000000000', {
        transaction_ref: 'old-stray',
        settled_at: '2025-01-31T12:00:00Z',
      }),
    );
    expect(reply.body).toMatchObject({ matched: false });
  });
});

describe('proprietary payloads', () => {
  const mapping = {
    fields: {
      idempotency_key: 'ref.order',
      transaction_ref: 'ref.txn',
      amount: 'money.value',
      currency: 'money.ccy',
      status: 'state',
      settled_at: 'at',
    },
    constants: { network: 'ORANGE_MONEY' },
    statusMap: { SUCCESS: 'COMPLETED', FAIL: 'FAILED' },
    amountUnit: 'minor',
    failureCodePath: 'error',
  };

  it('validates the mapping itself', async () => {
    const error = await h.failure(
      providersAdminApi.setMapping,
      { params: { providerId: provider.id }, body: { fields: { amount: 'a..b' }, statusMap: { X: 'DONE' } } },
      ADMIN,
    );
    expect(error.status).toBe(422);
    expect(error.fields!.map((f) => f.field)).toEqual(
      expect.arrayContaining(['fields.amount', 'statusMap.X']),
    );
  });

  it('422 naming protocol_version when a provider without a mapping sends a proprietary body', async () => {
    const plain = await h.createProvider('No mapping');
    const error = await h.settleFailure(plain.id, plain.signingSecret, { state: 'SUCCESS' });
    expect(error).toMatchObject({ status: 422, fields: [{ field: 'protocol_version' }] });
  });

  it('a proprietary payload and its protocol-v1 twin produce the same outcome', async () => {
    const mapped = await h.createProvider('Legacy Co');
    await h.activeRail(mapped.id, { countries: ['CI'] });
    await h.call(providersAdminApi.setMapping, { params: { providerId: mapped.id }, body: mapping }, ADMIN);
    const got = await h.call(providersAdminApi.getMapping, { params: { providerId: mapped.id } }, ADMIN);
    expect((got.body as { mapping: unknown }).mapping).toMatchObject(mapping);

    const outcome = async (send: (orderKey: string, token: string) => Promise<unknown>) => {
      const payment = paymentSnapshot();
      await h.initiate(payment, { network: 'ORANGE_MONEY', phone: '+2250700000001', country: 'CI' });
      const { orderKey } = await h.orderOf(payment.id);
      const reply = (await send(orderKey, payment.token)) as { body: Record<string, unknown> };
      const [received] = await h.waitFor('settlement.received', payment.id);
      const {
        settlementId: _s,
        paymentId: _p,
        orderKey: _o,
        ...rest
      } = received!.data as Record<string, unknown>;
      const { settlementId: _r, orderKey: _k, ...replyRest } = reply.body;
      return { event: rest, reply: replyRest };
    };
    const at = new Date().toISOString();
    const proprietary = await outcome((orderKey) =>
      h.settle(mapped.id, mapped.signingSecret, {
        ref: { order: orderKey, txn: 'LEG-1' },
        money: { value: 500000, ccy: 'XAF' },
        state: 'FAIL',
        at,
        error: 'insufficient_balance',
      }),
    );
    const v1 = await outcome((orderKey) =>
      h.settle(mapped.id, mapped.signingSecret, event(orderKey, { status: 'FAILED', settled_at: at })),
    );
    expect(proprietary.reply).toEqual(v1.reply);
    expect({ ...proprietary.event, failureCode: null }).toEqual(v1.event);
    expect(proprietary.event.failureCode).toBe('insufficient_balance');
  });

  it('422 names the SettlementEvent field and where it was read from', async () => {
    const mapped = await h.createProvider('Legacy Two');
    await h.call(providersAdminApi.setMapping, { params: { providerId: mapped.id }, body: mapping }, ADMIN);
    const error = await h.settleFailure(mapped.id, mapped.signingSecret, {
      ref: { order: 'k', txn: 't' },
      money: { value: 500050, ccy: 'XAF' },
      state: 'WEIRD',
      at: 'yesterday',
    });
    expect(error.status).toBe(422);
    expect(error.fields!.map((f) => f.field).sort()).toEqual(['amount', 'settled_at', 'status']);
    expect(error.fields!.find((f) => f.field === 'status')!.message).toContain('mapped from "state"');
  });
});

describe('reconciliation', () => {
  it('reports matched, settled without order, order without settlement, mismatches and completion after expiry', async () => {
    const recon = await h.createProvider('Recon Co');
    await h.activeRail(recon.id, { countries: ['CM'], networks: ['MTN_MOMO'] });
    const route = async () => {
      const payment = paymentSnapshot();
      await h.initiate(payment, { network: 'MTN_MOMO', phone: '+237670000001', country: 'CM' });
      const o = await h.orderOf(payment.id);
      await h.deliver('delivery.accepted', {
        orderKey: o.orderKey,
        paymentId: payment.id,
        railId: o.railId,
        classification: 'ACCEPTED',
      });
      await h.waitFor('execution.accepted', payment.id);
      return o;
    };
    const settled = await route();
    const unsettled = await route();
    const late = await route();
    const mismatched = await route();
    const sign = (body: Record<string, unknown>) =>
      h.settle(recon.id, recon.signingSecret, { ...body, network: 'MTN_MOMO' });
    await sign(event(settled.orderKey));
    await sign(event('pexec_stray0000000000000000', { transaction_ref: 'stray' }));
    await h.settleFailure(recon.id, recon.signingSecret, {
      ...event(mismatched.orderKey, { amount: '500000' }),
      network: 'MTN_MOMO',
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await sign(event(late.orderKey));

    const date = new Date().toISOString().slice(0, 10);
    const report = ReconciliationReport.parse(
      (await reconcile({ providerId: recon.id, date, livemode: 'false' })).body,
    );
    expect(report.summary).toEqual({
      orders: 4,
      matched: 2,
      settledWithoutOrder: 1,
      orderWithoutSettlement: 2,
      amountMismatch: 1,
      completedAfterExpiry: 1,
      secondOutcome: 0,
    });
    expect(report.matched.map((m) => m.orderKey).sort()).toEqual([settled.orderKey, late.orderKey].sort());
    expect(report.orderWithoutSettlement.map((m) => m.orderKey).sort()).toEqual(
      [unsettled.orderKey, mismatched.orderKey].sort(),
    );
    expect(report.amountMismatch[0]).toMatchObject({
      orderKey: mismatched.orderKey,
      fields: [{ field: 'amount' }],
    });
    expect(report.completedAfterExpiry[0]).toMatchObject({ orderKey: late.orderKey });

    const live = await reconcile({ providerId: recon.id, date, livemode: 'true' });
    expect(ReconciliationReport.parse(live.body).summary).toMatchObject({
      orders: 0,
      settledWithoutOrder: 1,
    });
  });

  it('refuses a bad query and non-admin callers', async () => {
    const { reconciliation } = providersAdminApi;
    const error = await h.failure(
      reconciliation,
      { query: { providerId: provider.id, date: '2025-13-45' } },
      ADMIN,
    );
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', fields: [{ field: 'date' }] });
    expect(
      await h.failure(
        reconciliation,
        { query: { providerId: provider.id, date: '2025-01-01' } },
        { kind: 'provider', providerId: provider.id },
      ),
    ).toMatchObject({ status: 403 });
    expect(
      await h.failure(reconciliation, { query: { providerId: 'prv_none', date: '2025-01-01' } }, ADMIN),
    ).toMatchObject({ status: 404 });
  });
});
