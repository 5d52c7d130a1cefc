import { describe, expect, it } from 'vitest';
import { providerPortalApi, routerQueries, type OrderCreatedData } from '@mmp/protocol';
import { providerActor, settlementEvent, startRouter } from './harness.js';

const h = await startRouter({ ORDER_TTL_SECONDS: '600', SETTLEMENT_CLOCK_SKEW_SECONDS: '60' });
const { updateRail, disableRail, enableRail, deleteRail, getRail } = providerPortalApi;
const DELIVERY = { kind: 'service', service: 'provider-delivery' } as const;

type RailBody = { id: string; status: string; inService: boolean; [key: string]: unknown };

/** A provider with one ACTIVE webhook rail serving `country` (each test has its own country). */
async function activeRailIn(country: string, overrides: Record<string, unknown> = {}) {
  const provider = await h.createProvider();
  const rail = await h.activeRail(provider.id, { countries: [country], ...overrides });
  const actor = providerActor(provider.id);
  const params = { railId: rail.id };
  return {
    provider,
    rail,
    actor,
    params,
    update: async (body: unknown) => (await h.call(updateRail, { params, body }, actor)).body as RailBody,
    updateFailure: (body: unknown) => h.failure(updateRail, { params, body }, actor),
    disable: async () => (await h.call(disableRail, { params }, actor)).body as RailBody,
    enable: async () => (await h.call(enableRail, { params }, actor)).body as RailBody,
    remove: () => h.call(deleteRail, { params }, actor),
    removeFailure: () => h.failure(deleteRail, { params }, actor),
  };
}

const accept = (order: OrderCreatedData) => h.outcome('delivery.accepted', order, 'ACCEPTED');

describe('updating a rail', () => {
  it('changes priority and payout support and keeps the rail ACTIVE and tested', async () => {
    const { update } = await activeRailIn('BJ');
    const updated = await update({ priority: 7, supportsPayout: true });
    expect(updated).toMatchObject({ priority: 7, supportsPayout: true, status: 'ACTIVE', inService: true });
    expect(updated.lastTest).toMatchObject({ ok: true });
  });

  it('a new endpoint puts the rail back to PENDING, untested; the same endpoint changes nothing', async () => {
    const { rail, update, params, actor } = await activeRailIn('BF');
    expect(await update({ endpoint: rail.endpoint })).toMatchObject({ status: 'ACTIVE' });
    const moved = await update({ endpoint: h.endpoint.url('/mmp-v2') });
    expect(moved).toMatchObject({ endpoint: h.endpoint.url('/mmp-v2'), status: 'PENDING', lastTest: null });
    const refusal = await h.failure(providerPortalApi.activateRail, { params }, actor);
    expect(refusal).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(refusal.message).toContain('not been tested');
    const credentials = await h.call(routerQueries.railCredentials, { railId: rail.id }, DELIVERY);
    expect(credentials.endpoint).toBe(h.endpoint.url('/mmp-v2'));
  });

  it('re-checks the endpoint by the public-address rule and names every invalid field', async () => {
    const { updateFailure, params, actor } = await activeRailIn('TG');
    for (const endpoint of [
      'https://10.0.0.7/mmp',
      'https://169.254.169.254/latest',
      'https://[::ffff:a00:1]/x',
    ]) {
      expect(await updateFailure({ endpoint })).toMatchObject({
        status: 422,
        fields: [{ field: 'endpoint' }],
      });
    }
    const error = await updateFailure({ priority: -1, transport: 'pull', endpoint: 'ftp://x' });
    expect(error.fields?.map((f) => f.field).sort()).toEqual(['endpoint', 'priority', 'transport']);
    expect(error.fields?.find((f) => f.field === 'transport')?.message).toContain('create a new rail');
    expect(await updateFailure({})).toMatchObject({ status: 422, fields: [{ field: '(root)' }] });
    expect(await updateFailure('faster please')).toMatchObject({ status: 422 });
    const unchanged = await h.call(getRail, { params }, actor);
    expect(unchanged.body).toMatchObject({ status: 'ACTIVE', priority: 10 });
  });

  it('refuses an endpoint on a pull rail', async () => {
    const provider = await h.createProvider();
    const rail = await h.createRail(provider.id, h.webhookRail({ transport: 'pull', endpoint: undefined }));
    const error = await h.failure(
      updateRail,
      { params: { railId: rail.id }, body: { endpoint: 'https://provider.example/mmp' } },
      providerActor(provider.id),
    );
    expect(error).toMatchObject({
      status: 422,
      fields: [{ field: 'endpoint', message: expect.stringContaining('pull') }],
    });
  });
});

describe('out of service and back', () => {
  it('routes no new order to a rail out of service, failovers included; back in service it takes orders again', async () => {
    const { rail, disable, enable } = await activeRailIn('NE', { priority: 1 });
    const other = await h.createProvider();
    const fallback = await h.activeRail(other.id, { countries: ['NE'], priority: 90 });
    expect(await disable()).toMatchObject({ inService: false, status: 'ACTIVE' });
    expect(await disable()).toMatchObject({ inService: false });
    const during = await h.routed('NE');
    expect((await h.orderOf(during.id)).railId).toBe(fallback.id);
    // The fallback fails: the failover passes over the rail out of service and the payment fails.
    const order = await h.orderOf(during.id);
    await h.outcome('delivery.failed', order, 'HTTP_ERROR');
    await h.waitFor('execution.failed', during.id);
    expect(h.events('order.created', during.id)).toHaveLength(1);

    expect(await enable()).toMatchObject({ inService: true, status: 'ACTIVE' });
    const after = await h.routed('NE');
    expect((await h.orderOf(after.id)).railId).toBe(rail.id);
  });

  it('lets an order already out finish: its acceptance and its settlement still apply', async () => {
    const { provider, disable } = await activeRailIn('ML');
    const payment = await h.routed('ML');
    const order = await h.orderOf(payment.id);
    await disable();
    await accept(order);
    await h.waitFor('execution.accepted', payment.id);
    const receipt = await h.settle(provider.id, provider.signingSecret, settlementEvent(order.orderKey));
    expect(receipt.body).toMatchObject({ matched: true, orderKey: order.orderKey, status: 'COMPLETED' });
    await h.waitFor('settlement.received', payment.id);
  });
});

describe('deleting a rail', () => {
  it('refuses while an order is open (routed, then accepted and unsettled) and deletes once it is settled', async () => {
    const { provider, rail, params, actor, disable, remove, removeFailure } = await activeRailIn('GN');
    const payment = await h.routed('GN');
    const order = await h.orderOf(payment.id);
    const routedRefusal = await removeFailure();
    expect(routedRefusal).toMatchObject({ status: 409, code: 'rail_has_open_orders' });
    expect(routedRefusal.message).toContain(order.orderKey);
    await disable();
    await accept(order);
    await h.waitFor('execution.accepted', payment.id);
    expect(await removeFailure()).toMatchObject({ status: 409, code: 'rail_has_open_orders' });
    await h.settle(
      provider.id,
      provider.signingSecret,
      settlementEvent(order.orderKey, { status: 'FAILED' }),
    );
    expect((await remove()).body).toEqual({ id: rail.id, deleted: true });
    expect(await h.failure(getRail, { params }, actor)).toMatchObject({ status: 404 });
    expect(await h.failure(routerQueries.railCredentials, { railId: rail.id }, DELIVERY)).toMatchObject({
      status: 404,
    });
    // Its past order stays readable for the payment.
    expect((await h.status(payment.id)).order).toMatchObject({ railId: rail.id, status: 'ACCEPTED' });
  });

  it('deletes a rail that never took an order', async () => {
    const { rail, remove } = await activeRailIn('GM');
    expect((await remove()).body).toEqual({ id: rail.id, deleted: true });
  });
});

describe("another provider's rail, or none", () => {
  it('is not found for every change, and is left untouched', async () => {
    const { rail, params, actor } = await activeRailIn('LR');
    const stranger = providerActor((await h.createProvider()).id);
    const attempts = [
      h.failure(updateRail, { params, body: { priority: 1 } }, stranger),
      h.failure(disableRail, { params }, stranger),
      h.failure(enableRail, { params }, stranger),
      h.failure(deleteRail, { params }, stranger),
      h.failure(updateRail, { params: { railId: 'rail_nope' }, body: { priority: 1 } }, actor),
      h.failure(disableRail, { params: { railId: 'rail_nope' } }, actor),
      h.failure(enableRail, { params: { railId: 'rail_nope' } }, actor),
      h.failure(deleteRail, { params: { railId: 'rail_nope' } }, actor),
    ];
    for (const error of await Promise.all(attempts))
      expect(error).toMatchObject({ status: 404, code: 'resource_not_found', message: 'Rail not found.' });
    const intact = await h.call(getRail, { params: { railId: rail.id } }, actor);
    expect(intact.body).toMatchObject({ status: 'ACTIVE', inService: true, priority: 10 });
  });
});
