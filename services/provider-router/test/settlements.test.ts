import { describe, expect, it } from 'vitest';
import { ReconciliationReport, hexHmac, providersAdminApi } from '@mmp/protocol';
import { ADMIN, paymentSnapshot } from './harness.js';
import { startSettling } from './settling.js';

const { h, db, provider, order, event, settle, settleFailure, reconcile } = await startSettling();

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
    const reply = await settle(
      event('prov-key-1', { transaction_ref: payment.token, amount: '5000.00', status: 'FAILED' }),
    );
    expect(reply.body).toMatchObject({ matched: true, status: 'FAILED' });
    await h.waitFor('settlement.received', payment.id);
  });

  it('PENDING is stored but emits nothing: the payment stays PROCESSING', async () => {
    const { payment, order: o } = await order();
    const reply = await settle(event(o.orderKey, { status: 'PENDING' }));
    expect(reply.body).toMatchObject({ received: true, matched: true, status: 'PENDING' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.events('settlement.received', payment.id)).toHaveLength(0);
  });

  it('200 and stored as unmatched when no order matches, with no event', async () => {
    const reply = await settle(event('pexec_unknownkey000000000000', { transaction_ref: 'nothing-here' }));
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

  it('says whether the signature is missing, misshapen or wrong, the same for any provider', async () => {
    const body = event('pexec_x');
    const refused = async (providerId: string, signature: string) =>
      (
        (await h.settleFailure(providerId, provider.signingSecret, body, { signature })) as {
          message: string;
        }
      ).message;
    for (const providerId of [provider.id, 'prv_doesnotexist']) {
      expect(await refused(providerId, '')).toMatch(
        /header is missing: send the hex HMAC-SHA256 of the exact body/,
      );
      expect(await refused(providerId, `t=1,v1=${'ab'.repeat(32)}`)).toMatch(/is not 64 hex digits/);
      expect(await refused(providerId, 'ab'.repeat(32))).toBe(
        'The x-service-signature header does not match the body.',
      );
    }
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
    const error = await settleFailure({
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
    await settle(event(o.orderKey));
    const error = await settleFailure(event(o.orderKey, { status: 'FAILED' }));
    expect(error).toMatchObject({ status: 409, code: 'duplicate_event' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.events('settlement.received', payment.id)).toHaveLength(1);
  });

  it('409 for a repeated key before any refusal of its fields, counted on the first settlement, matched or not', async () => {
    const { order: o } = await order();
    const first = await settle(event(o.orderKey));
    const mismatched = await settleFailure(event(o.orderKey, { amount: '7000' }));
    expect(mismatched).toMatchObject({ status: 409, code: 'duplicate_event' });
    expect(await db.mismatches.count({ idempotencyKey: o.orderKey })).toBe(0);
    const unmatched = event('pexec_twiceunmatched0000000000', { transaction_ref: 'nothing-twice' });
    const again = await settle(unmatched);
    expect(await settleFailure(unmatched)).toMatchObject({ status: 409, code: 'duplicate_event' });
    expect(await settleFailure(unmatched)).toMatchObject({ status: 409, code: 'duplicate_event' });
    const idOf = (reply: { body: unknown }) => (reply.body as { settlementId: string }).settlementId;
    expect((await db.settlements.findOne({ _id: idOf(first) }))!.duplicatesRefused).toBe(1);
    expect((await db.settlements.findOne({ _id: idOf(again) }))!.duplicatesRefused).toBe(2);
    expect(await db.settlements.count({ idempotencyKey: 'pexec_twiceunmatched0000000000' })).toBe(1);
  });

  it('422 naming amount for cents, and currency for another currency; a corrected event is then accepted', async () => {
    const { payment, order: o } = await order();
    const cents = await settleFailure(event(o.orderKey, { amount: '500000' }));
    expect(cents).toMatchObject({ status: 422, code: 'validation_error', fields: [{ field: 'amount' }] });
    const currency = await settleFailure(event(o.orderKey, { currency: 'XOF' }));
    expect(currency).toMatchObject({ status: 422, fields: [{ field: 'currency' }] });
    expect(await settle(event(o.orderKey))).toMatchObject({
      status: 200,
    });
    await h.waitFor('settlement.received', payment.id);
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
      await h.outcome('delivery.accepted', o, 'ACCEPTED');
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
