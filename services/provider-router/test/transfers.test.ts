import { describe, expect, it } from 'vitest';
import {
  TransferOutcomeData,
  newPayoutId,
  newRefundId,
  routerQueries,
  type TransferRequestedData,
} from '@mmp/protocol';
import { settlementEvent, startRouter } from './harness.js';

const h = await startRouter({ ORDER_TTL_SECONDS: '600', SETTLEMENT_CLOCK_SKEW_SECONDS: '60' });
const PAYMENTS = { kind: 'service', service: 'payments' } as const;

/** A payout of 2,500 XAF to a number in `country` (each test pays out in its own country). */
function transfer(country: string, overrides: Partial<TransferRequestedData> = {}): TransferRequestedData {
  return {
    transferId: newPayoutId(),
    kind: 'payout',
    projectId: 'proj_transfers',
    livemode: false,
    amount: 2500,
    currency: 'XAF',
    network: 'ORANGE_MONEY',
    country,
    phone: '+237690000001',
    preferredRailId: null,
    ...overrides,
  };
}

async function settledOf(transferId: string) {
  const [event] = await h.waitFor('transfer.settled', transferId);
  return TransferOutcomeData.parse(event!.data);
}

describe('routing a refund or payout', () => {
  it('sends the exact payout.execute body to a payout-capable rail, never to one without payouts', async () => {
    const provider = await h.createProvider();
    await h.activeRail(provider.id, { countries: ['GA'], priority: 1 });
    const payoutRail = await h.activeRail(provider.id, {
      countries: ['GA'],
      priority: 9,
      supportsPayout: true,
    });
    const data = transfer('GA');
    await h.requestTransfer(data);
    const order = await h.orderOf(data.transferId);
    expect(order).toMatchObject({ paymentId: data.transferId, railId: payoutRail.id, transport: 'webhook' });
    expect(order.orderKey).toMatch(/^pexo_/);
    expect(order.payload).toEqual({
      protocol_version: '1',
      type: 'payout.execute',
      idempotency_key: order.orderKey,
      amount: '2500',
      currency: 'XAF',
      network: 'ORANGE_MONEY',
      country: 'GA',
      payee: { msisdn: '+237690000001' },
      transaction_ref: data.transferId,
      timestamp: expect.any(Number),
    });
    // payments hears of a transfer's outcome only, never of its routing.
    expect(h.events('routing.decided', data.transferId)).toEqual([]);
    await h.requestTransfer(data);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.events('order.created', data.transferId)).toHaveLength(1);
  });

  it('a refund goes to the rail that collected its payment first, when it pays out', async () => {
    const provider = await h.createProvider();
    await h.activeRail(provider.id, { countries: ['TD'], priority: 1, supportsPayout: true });
    const collecting = await h.activeRail(provider.id, {
      countries: ['TD'],
      priority: 50,
      supportsPayout: true,
    });
    const data = transfer('TD', {
      transferId: newRefundId(),
      kind: 'refund',
      preferredRailId: collecting.id,
    });
    await h.requestTransfer(data);
    expect(await h.orderOf(data.transferId)).toMatchObject({ railId: collecting.id });
  });

  it('fails at once with provider_unavailable when no payout rail serves it, and the gate says so before', async () => {
    const provider = await h.createProvider();
    await h.activeRail(provider.id, { countries: ['BJ'] });
    const query = { livemode: false, network: 'ORANGE_MONEY', currency: 'XAF', country: 'BJ' } as const;
    const gate = await h.call(routerQueries.payoutRoute, query, PAYMENTS);
    expect(gate).toMatchObject({ available: false, reason: expect.stringContaining('with payouts') });
    const live = await h.call(routerQueries.payoutRoute, { ...query, livemode: true }, PAYMENTS);
    expect(live).toMatchObject({ available: false, anyRailOfEnvironment: false });
    const data = transfer('BJ');
    await h.requestTransfer(data);
    expect(await settledOf(data.transferId)).toMatchObject({
      status: 'FAILED',
      failureCode: 'provider_unavailable',
      orderKey: expect.stringMatching(/^pexo_/),
    });
    expect(h.events('order.created', data.transferId)).toEqual([]);
  });

  it('answers the gate with available when an ACTIVE payout rail serves the channel', async () => {
    const provider = await h.createProvider();
    await h.activeRail(provider.id, { countries: ['NE'], supportsPayout: true });
    const gate = await h.call(
      routerQueries.payoutRoute,
      { livemode: false, network: 'ORANGE_MONEY', currency: 'XAF', country: 'NE' },
      PAYMENTS,
    );
    expect(gate).toMatchObject({ available: true, anyRailOfEnvironment: true });
  });
});

describe("a transfer's outcome", () => {
  async function routedPayout(country: string) {
    const provider = await h.createProvider();
    const rail = await h.activeRail(provider.id, { countries: [country], supportsPayout: true });
    const data = transfer(country);
    await h.requestTransfer(data);
    return { provider, rail, data, order: await h.orderOf(data.transferId) };
  }

  const payoutSettlement = (orderKey: string, status: string) =>
    settlementEvent(orderKey, { amount: '2500', status });

  it('is COMPLETED by its settlement, correlated by the order key, once', async () => {
    const { provider, order, data } = await routedPayout('ML');
    await h.deliver('delivery.accepted', { ...order, classification: 'ACCEPTED' });
    const secret = provider.signingSecret;
    const receipt = await h.settle(provider.id, secret, payoutSettlement(order.orderKey, 'COMPLETED'));
    expect(receipt.body).toMatchObject({ matched: true, orderKey: order.orderKey });
    expect(await settledOf(data.transferId)).toMatchObject({
      transferId: data.transferId,
      kind: 'payout',
      status: 'COMPLETED',
      failureCode: null,
    });
    // The same event again, now FAILED, is a duplicate of its key: nothing more is announced.
    await h
      .settle(provider.id, secret, payoutSettlement(order.orderKey, 'FAILED'), {})
      .catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.events('transfer.settled', data.transferId)).toHaveLength(1);
    expect(h.events('settlement.received', data.transferId)).toEqual([]);
  });

  it('is FAILED with the payee error when the provider rejects it, without failover', async () => {
    const { order, data } = await routedPayout('BF');
    await h.deliver('delivery.rejected', {
      ...order,
      classification: 'REJECTED',
      reason: 'account_inactive',
    });
    expect(await settledOf(data.transferId)).toMatchObject({
      status: 'FAILED',
      failureCode: 'account_inactive',
    });
    expect(h.events('execution.failed', data.transferId)).toEqual([]);
  });

  it('is FAILED by a FAILED settlement', async () => {
    const { provider, order, data } = await routedPayout('GN');
    await h.deliver('delivery.accepted', { ...order, classification: 'ACCEPTED' });
    await h.settle(provider.id, provider.signingSecret, payoutSettlement(order.orderKey, 'FAILED'));
    expect(await settledOf(data.transferId)).toMatchObject({
      status: 'FAILED',
      failureCode: 'provider_declined',
    });
  });
});
