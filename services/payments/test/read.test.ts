import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SPEC_PAYMENT_FIELDS } from '@mmp/platform/testing';
import { openPaymentsDb } from '../src/store/db.js';
import { createPayment, eventually, knownProject, merchant, usePaymentsHarness } from './support.js';

const h = usePaymentsHarness();

type ListBody = {
  data: { id: string; token: string; amount: number; createdAt: string }[];
  has_more: boolean;
  meta: Record<string, number>;
};
const FULL_FIELDS = [...SPEC_PAYMENT_FIELDS.full].sort();

describe('retrieve', () => {
  it('returns the full field set', async () => {
    const actor = merchant();
    const created = await createPayment(h, actor, {
      reference: 'R-1',
      customer: { name: 'Awa', email: 'awa@example.com' },
    });
    const reply = await h.call('retrieve', { params: { token: created.token } }, actor);
    expect(Object.keys(reply.body as object).sort()).toEqual(FULL_FIELDS);
    expect(reply.body).toMatchObject({
      token: created.token,
      reference: 'R-1',
      paymentMethod: 'UNKNOWN',
      payerName: 'Awa',
      payerEmail: 'awa@example.com',
    });
  });

  it('answers 404 for an unknown token and for a payment of another project or environment', async () => {
    const actor = merchant();
    const created = await createPayment(h, actor);
    for (const [token, who] of [
      ['pay_unknown', actor],
      [created.token, merchant()],
      [created.token, { ...actor, livemode: true }],
    ] as const) {
      const error = await h.callError('retrieve', { params: { token } }, who);
      expect(error.code).toBe('resource_not_found');
      expect(error.status).toBe(404);
    }
  });

  it('expands customer, project, refunds and events with expand[] or expand', async () => {
    const actor = merchant();
    await knownProject(h, actor, 'Test shop');
    const created = await createPayment(h, actor, {
      customerId: 'cust-1',
      customer: { phone: '+237690000001' },
    });
    const reply = await h.call(
      'retrieve',
      {
        params: { token: created.token },
        query: { 'expand[]': ['customer', 'project'], expand: 'refunds,events' },
      },
      actor,
    );
    const body = reply.body as Record<string, unknown>;
    expect(body.customer).toEqual({ id: 'cust-1', email: null, phone: '+237690000001', name: null });
    expect(body.project).toEqual({ id: actor.projectId, name: 'Test shop' });
    expect(body.refunds).toEqual([]);
    expect(body.events).toEqual([
      expect.objectContaining({ type: 'payment.created', id: expect.stringMatching(/^evt_/) }),
    ]);
    const plain = await h.call('retrieve', { params: { token: created.token } }, actor);
    expect(plain.body).not.toHaveProperty('events');
  });

  it('names a project whose project.updated has not come yet neutrally, and its latest name once it has', async () => {
    const actor = merchant();
    const created = await createPayment(h, actor);
    const project = async () =>
      (
        (await h.call('retrieve', { params: { token: created.token }, query: { expand: 'project' } }, actor))
          .body as { project: unknown }
      ).project;
    expect(await project()).toEqual({ id: actor.projectId, name: 'Merchant' });
    await knownProject(h, actor, 'Boutique');
    const renamedAt = new Date().toISOString();
    await h.publish(
      'project.updated',
      { project: { id: actor.projectId, name: 'Boutique Ndolo', displayName: null, logoUrl: null } },
      { occurredAt: renamedAt },
    );
    // An older event delivered late changes nothing.
    await h.publish(
      'project.updated',
      { project: { id: actor.projectId, name: 'Old name', displayName: null, logoUrl: null } },
      { occurredAt: new Date(Date.parse(renamedAt) - 60_000).toISOString() },
    );
    await eventually(async () => JSON.stringify(await project()).includes('Boutique Ndolo'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await project()).toEqual({ id: actor.projectId, name: 'Boutique Ndolo' });
  });

  it('answers 400 invalid_request for an unknown expansion', async () => {
    const actor = merchant();
    const created = await createPayment(h, actor);
    const error = await h.callError(
      'retrieve',
      { params: { token: created.token }, query: { expand: 'secrets' } },
      actor,
    );
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
  });
});

describe('list', () => {
  const actor = merchant();
  const userId = randomUUID();
  const created: { id: string; token: string }[] = [];
  beforeAll(async () => {
    await knownProject(h, actor, 'Test shop');
    for (let i = 0; i < 7; i += 1) {
      created.push(
        await createPayment(h, actor, {
          amount: 1000 * (i + 1),
          currency: i % 2 === 0 ? 'XAF' : 'XOF',
          reference: `LIST-${i}`,
          ...(i < 3 ? { userId } : {}),
          ...(i === 4 ? { customer: { name: 'Moussa Diallo', phone: '+237670000009' } } : {}),
        }),
      );
    }
    await createPayment(h, merchant(), { reference: 'LIST-other-project' });
    await createPayment(h, { ...actor, livemode: true }, { reference: 'LIST-live' });
  });

  it('lists newest first with list items and meta, confined to the project and environment', async () => {
    const reply = await h.call('list', { query: {} }, actor);
    const body = reply.body as ListBody;
    expect(body.data.map((p) => p.id)).toEqual([...created].reverse().map((p) => p.id));
    expect(Object.keys(body.data[0] as object).sort()).toEqual([...SPEC_PAYMENT_FIELDS.listItem].sort());
    expect(body.has_more).toBe(false);
    expect(body.meta).toEqual({ limit: 20, total: 7, page: 1 });
  });

  it('pages with starting_after and ending_before', async () => {
    const first = (await h.call('list', { query: { limit: '3' } }, actor)).body as ListBody;
    expect(first.data).toHaveLength(3);
    expect(first.has_more).toBe(true);
    const second = (await h.call('list', { query: { limit: '3', starting_after: first.data[2]!.id } }, actor))
      .body as ListBody;
    expect(second.data.map((p) => p.id)).toEqual([created[3], created[2], created[1]].map((p) => p!.id));
    expect(second.has_more).toBe(true);
    expect(second.meta).toEqual({ limit: 3, total: 7 });
    const back = (await h.call('list', { query: { limit: '3', ending_before: second.data[0]!.id } }, actor))
      .body as ListBody;
    expect(back.data.map((p) => p.id)).toEqual(first.data.map((p) => p.id));
    expect(back.has_more).toBe(false);
    const last = (await h.call('list', { query: { limit: '3', starting_after: second.data[2]!.id } }, actor))
      .body as ListBody;
    expect(last.data.map((p) => p.id)).toEqual([created[0]!.id]);
    expect(last.has_more).toBe(false);
  });

  it('pages with page', async () => {
    const page3 = (await h.call('list', { query: { limit: '3', page: '3' } }, actor)).body as ListBody;
    expect(page3.data.map((p) => p.id)).toEqual([created[0]!.id]);
    expect(page3.meta).toEqual({ limit: 3, total: 7, page: 3 });
  });

  it('filters by status, currency, amount range, dates, method and search', async () => {
    const ids = async (query: Record<string, string>) =>
      ((await h.call('list', { query }, actor)).body as ListBody).data.map((p) => p.id).sort();
    expect(await ids({ currency: 'XOF' })).toEqual(
      [created[1], created[3], created[5]].map((p) => p!.id).sort(),
    );
    expect(await ids({ minAmount: '2000', maxAmount: '3000' })).toEqual(
      [created[1], created[2]].map((p) => p!.id).sort(),
    );
    expect(await ids({ status: 'COMPLETED' })).toEqual([]);
    expect(await ids({ status: 'PENDING', paymentMethod: 'UNKNOWN' })).toHaveLength(7);
    expect(await ids({ search: 'list-6' })).toEqual([created[6]!.id]);
    expect(await ids({ search: created[2]!.token.slice(4, 16) })).toEqual([created[2]!.id]);
    expect(await ids({ search: 'moussa' })).toEqual([created[4]!.id]);
    expect(await ids({ search: '670000009' })).toEqual([created[4]!.id]);
    expect(
      await ids({ startDate: '2000-01-01T00:00:00Z', endDate: new Date(Date.now() + 60_000).toISOString() }),
    ).toHaveLength(7);
    expect(await ids({ endDate: '2000-01-01' })).toEqual([]);
    // Bounds are numbers, not only integers (the specification types them so).
    expect(await ids({ minAmount: '1999.5', maxAmount: '3000.5' })).toEqual(
      [created[1], created[2]].map((p) => p!.id).sort(),
    );
    expect(await ids({ minAmount: '1000.01', maxAmount: '1999.99' })).toEqual([]);
  });

  it('expands on list items', async () => {
    const body = (await h.call('list', { query: { limit: '1', 'expand[]': 'events' } }, actor)).body as {
      data: { events: unknown[] }[];
    };
    expect(body.data[0]!.events).toHaveLength(1);
  });

  it('expands customer, project and refunds on every list item', async () => {
    const body = (
      await h.call('list', { query: { limit: '4', 'expand[]': ['customer', 'project', 'refunds'] } }, actor)
    ).body as { data: Record<string, unknown>[] };
    expect(body.data.map((item) => item.id)).toEqual(
      [created[6], created[5], created[4], created[3]].map((p) => p!.id),
    );
    for (const item of body.data) {
      expect(item.project).toEqual({ id: actor.projectId, name: 'Test shop' });
      expect(item.refunds).toEqual([]);
      expect(item).not.toHaveProperty('events');
    }
    expect(body.data[2]!.customer).toEqual({
      id: null,
      email: null,
      phone: '+237670000009',
      name: 'Moussa Diallo',
    });
    expect(body.data[0]!.customer).toBeNull();
  });

  it.each([
    [{ limit: '0' }],
    [{ limit: '101' }],
    [{ limit: 'ten' }],
    [{ page: '0' }],
    [{ page: '501' }],
    [{ page: '101', limit: '100' }],
    [{ status: 'PAID' }],
    [{ currency: 'EUR' }],
    [{ paymentMethod: 'VISA' }],
    [{ minAmount: '-1' }],
    [{ maxAmount: '1e3' }],
    [{ minAmount: '-0.5' }],
    [{ startDate: 'yesterday' }],
    [{ minAmount: '500', maxAmount: '100' }],
    [{ starting_after: 'not-a-payment' }],
    [{ 'expand[]': 'secrets' }],
  ])('answers 400 invalid_request for %j', async (query) => {
    const error = await h.callError('list', { query }, actor);
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
  });

  it('refuses a cursor naming a payment of another project', async () => {
    const foreign = await createPayment(h, merchant());
    const error = await h.callError('list', { query: { starting_after: foreign.id } }, actor);
    expect(error.code).toBe('invalid_request');
  });

  it('lists a user’s payments newest first as a plain array', async () => {
    const reply = await h.call('list-by-user', { params: { userId } }, actor);
    const body = reply.body as { id: string }[];
    expect(Array.isArray(body)).toBe(true);
    expect(body.map((p) => p.id)).toEqual([created[2], created[1], created[0]].map((p) => p!.id));
    expect(Object.keys(body[0] as object).sort()).toEqual(FULL_FIELDS);
    const limited = (await h.call('list-by-user', { params: { userId }, query: { limit: '1' } }, actor))
      .body as unknown[];
    expect(limited).toHaveLength(1);
    expect((await h.call('list-by-user', { params: { userId } }, merchant())).body).toEqual([]);
  });

  it('refuses a bad userId or limit on the user list', async () => {
    expect((await h.callError('list-by-user', { params: { userId: 'abc' } }, actor)).code).toBe(
      'invalid_request',
    );
    expect(
      (await h.callError('list-by-user', { params: { userId }, query: { limit: '101' } }, actor)).code,
    ).toBe('invalid_request');
  });
});

describe('list ordering when creation times tie', () => {
  it('orders by id after createdAt, so pages never skip or repeat a payment', async () => {
    const actor = merchant();
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) ids.push((await createPayment(h, actor)).id);
    // Payments created in the same millisecond (concurrent creates, several replicas).
    const db = openPaymentsDb(h.service.context.store);
    expect(
      await db.payments.updateMany({ id: { $in: ids } }, { $set: { createdAt: '2026-01-01T00:00:00.000Z' } }),
    ).toBe(7);
    const expected = [...ids].sort().reverse();
    const list = async (query: Record<string, string>) =>
      ((await h.call('list', { query }, actor)).body as ListBody).data.map((p) => p.id);
    expect(await list({})).toEqual(expected);
    // Forward with starting_after, two at a time.
    const forward: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await list({ limit: '2', ...(after ? { starting_after: after } : {}) });
      forward.push(...page);
      if (page.length < 2) break;
      after = page.at(-1);
    }
    expect(forward).toEqual(expected);
    // Backward with ending_before from the last one.
    const backward: string[] = [];
    let before: string | undefined = expected.at(-1);
    for (;;) {
      const page = await list({ limit: '2', ending_before: before! });
      backward.unshift(...page);
      if (page.length < 2) break;
      before = page[0];
    }
    expect(backward).toEqual(expected.slice(0, -1));
    // Page mode agrees, and so does the same query asked again.
    const pages = [1, 2, 3, 4].map((page) => list({ limit: '2', page: String(page) }));
    expect((await Promise.all(pages)).flat()).toEqual(expected);
    expect(await list({})).toEqual(expected);
  });
});

describe('cancel', () => {
  it('cancels a PENDING payment once, with its event, and refuses a second cancel', async () => {
    const actor = merchant();
    const created = await createPayment(h, actor);
    const reply = await h.call('cancel', { params: { token: created.token } }, actor);
    expect(reply.body).toMatchObject({ status: 'CANCELLED', token: created.token });
    const error = await h.callError('cancel', { params: { token: created.token } }, actor);
    expect(error.code).toBe('invalid_state');
    expect(error.status).toBe(409);
  });

  it('replays a cancel with the same Idempotency-Key', async () => {
    const actor = merchant();
    const created = await createPayment(h, actor);
    const key = randomUUID();
    const first = await h.call(
      'cancel',
      { params: { token: created.token }, headers: { 'Idempotency-Key': key } },
      actor,
    );
    const second = await h.call(
      'cancel',
      { params: { token: created.token }, headers: { 'Idempotency-Key': key } },
      actor,
    );
    expect(second.body).toEqual(first.body);
    expect(second.headers).toEqual({ 'Idempotent-Replayed': 'true' });
  });

  it('answers 404 for a payment of another project', async () => {
    const created = await createPayment(h, merchant());
    expect((await h.callError('cancel', { params: { token: created.token } }, merchant())).code).toBe(
      'resource_not_found',
    );
  });
});
