import { describe, expect, it } from 'vitest';
import { ReconciliationReport } from '@mmp/protocol';
import { startSettling } from './settling.js';

const { h, db, provider, order, event, settle, settleFailure, reconcile } = await startSettling();

describe('one outcome per order', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('keeps a second final settlement with a new key for reconciliation and never applies it', async () => {
    const { payment, order: o } = await order();
    const first = await settle(event(o.orderKey, { status: 'FAILED' }));
    const [applied] = await h.waitFor('settlement.received', payment.id);
    // The provider changes its mind under its own key, correlated by our transaction_ref.
    const second = await settle(
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
      settle(event(o.orderKey, { status: 'COMPLETED' })),
      settle(event('prov-race-1', { transaction_ref: payment.token, status: 'FAILED' })),
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
    await settle(event('prov-pending-1', { transaction_ref: payment.token, status: 'PENDING' }));
    await settle(event(o.orderKey));
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
    const error = await settleFailure(event(o.orderKey, { settled_at: before }));
    expect(error).toMatchObject({ status: 422, code: 'validation_error', fields: [{ field: 'settled_at' }] });
    expect(error.fields![0]!.message).toContain('before the order was created');
    expect(await db.settlements.findOne({ idempotencyKey: o.orderKey })).toBeNull();
    // Within the skew (60 s here) it is taken: the provider's clock may lag ours a little.
    const lagging = new Date(Date.parse(created!.createdAt) - 30_000).toISOString();
    expect(await settle(event(o.orderKey, { settled_at: lagging }))).toMatchObject({
      status: 200,
    });
    await h.waitFor('settlement.received', payment.id);
  });

  it('422 naming settled_at when it lies in the future beyond the clock skew, matched or not', async () => {
    const { order: o } = await order();
    const future = new Date(Date.now() + minutes(10)).toISOString();
    for (const key of [o.orderKey, 'pexec_nothing00000000000000000']) {
      const error = await settleFailure(event(key, { settled_at: future, transaction_ref: `future-${key}` }));
      expect(error).toMatchObject({ status: 422, fields: [{ field: 'settled_at' }] });
      expect(error.fields![0]!.message).toContain('in the future');
    }
    const soon = new Date(Date.now() + 30_000).toISOString();
    expect(await settle(event(o.orderKey, { settled_at: soon }))).toMatchObject({
      status: 200,
    });
  });

  it('takes an old settled_at for a settlement that matches no order (nothing to compare it with)', async () => {
    const reply = await settle(
      event('pexec_oldstray000000000000000', {
        transaction_ref: 'old-stray',
        settled_at: '2025-01-31T12:00:00Z',
      }),
    );
    expect(reply.body).toMatchObject({ matched: false });
  });
});
