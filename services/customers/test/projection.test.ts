import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingEvent } from '@mmp/platform';
import { paymentLife, snapshot } from './fixtures.js';
import { merchant, startHarness, type Harness } from './harness.js';

const P = '11111111-1111-4111-8111-111111111111';
const Q = '22222222-2222-4222-8222-222222222222';
const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 3600 * 1000).toISOString();

/**
 * Project P, sandbox: Awa (two completed, one partially refunded), Ben (one completed, one
 * failed), a nameless customer (one pending, one expired), and a payment with no customer.
 * Awa also exists in production and in project Q, which must stay apart.
 */
function scenario(): PendingEvent[] {
  const awa = { customerId: 'cust-awa', payerName: 'Awa Diallo', payerEmail: 'awa@example.com', payerPhone: '+237690000001' };
  return [
    ...paymentLife(snapshot({ ...awa, projectId: P, amount: 10_000, createdAt: daysAgo(60) }), 'COMPLETED', [2_500]),
    ...paymentLife(snapshot({ ...awa, projectId: P, amount: 3_000, createdAt: daysAgo(2) }), 'COMPLETED'),
    ...paymentLife(snapshot({ customerId: 'cust-ben', payerName: 'Ben Mbarga', payerPhone: '+237670000001', projectId: P, amount: 20_000, createdAt: daysAgo(10) }), 'COMPLETED'),
    ...paymentLife(snapshot({ customerId: 'cust-ben', projectId: P, amount: 5_000, createdAt: daysAgo(9) }), 'FAILED'),
    ...paymentLife(snapshot({ customerId: 'cust-chloe', payerEmail: 'Chloe@Example.org', payerPhone: '+237690000005', projectId: P, amount: 1_000, createdAt: daysAgo(50) }), 'PENDING'),
    ...paymentLife(snapshot({ customerId: 'cust-chloe', payerPhone: '+237690000005', projectId: P, amount: 4_000, createdAt: daysAgo(45) }), 'EXPIRED'),
    ...paymentLife(snapshot({ customerId: null, projectId: P, amount: 9_999, createdAt: daysAgo(1) }), 'COMPLETED'),
    ...paymentLife(snapshot({ ...awa, projectId: P, livemode: true, amount: 777, createdAt: daysAgo(3) }), 'COMPLETED'),
    ...paymentLife(snapshot({ ...awa, projectId: Q, amount: 555, createdAt: daysAgo(4) }), 'COMPLETED'),
  ];
}

let h: Harness;
let events: PendingEvent[];

/** Everything a merchant can read, for before/after comparisons. */
async function everything() {
  const result: Record<string, unknown> = {};
  for (const [projectId, livemode] of [[P, false], [P, true], [Q, false]] as const) {
    const actor = merchant(projectId, livemode);
    const list = await h.call('list', actor, { params: { projectId }, query: { per_page: '100', sort_by: 'createdAt' } });
    const histories = [];
    for (const customer of list.data) {
      histories.push(await h.call('transactions', actor, { params: { projectId, customerId: customer.id }, query: { per_page: '100' } }));
    }
    result[`${projectId}:${livemode}`] = { list, histories };
  }
  return result;
}

beforeAll(async () => {
  h = await startHarness('customers');
  events = scenario();
  await h.publish(events);
  await h.settled();
});

afterAll(async () => {
  await h?.stop();
});

const listP = (query: Record<string, string> = {}) => h.call('list', merchant(P), { params: { projectId: P }, query });

describe('projection of payment events', () => {
  it('builds one profile per customer with exact totals', async () => {
    const { data, meta } = await listP();
    expect(meta).toEqual({ page: 1, per_page: 20, total: 3, total_pages: 1 });
    const byExternal = Object.fromEntries(data.map((c: { externalId: string }) => [c.externalId, c]));
    expect(byExternal['cust-awa']).toMatchObject({
      projectId: P,
      livemode: false,
      name: 'Awa Diallo',
      email: 'awa@example.com',
      phone: '+237690000001',
      metadata: {},
      totalTransactions: 2,
      totalSpent: 10_000 - 2_500 + 3_000,
    });
    expect(byExternal['cust-ben']).toMatchObject({ totalTransactions: 2, totalSpent: 20_000, name: 'Ben Mbarga' });
    expect(byExternal['cust-chloe']).toMatchObject({ totalTransactions: 2, totalSpent: 0, name: null, email: 'Chloe@Example.org' });
    expect(byExternal['cust-awa'].id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps environments and projects apart', async () => {
    const live = await h.call('list', merchant(P, true), { params: { projectId: P } });
    expect(live.data.map((c: { totalSpent: number }) => c.totalSpent)).toEqual([777]);
    const other = await h.call('list', merchant(Q), { params: { projectId: Q } });
    expect(other.data.map((c: { totalSpent: number }) => c.totalSpent)).toEqual([555]);
    const testAwa = (await listP({ search: 'awa' })).data[0];
    await expect(h.call('retrieve', merchant(P, true), { params: { projectId: P, customerId: testAwa.id } })).rejects.toMatchObject({
      code: 'resource_not_found',
    });
    await expect(h.call('retrieve', merchant(Q), { params: { projectId: Q, customerId: testAwa.id } })).rejects.toMatchObject({
      code: 'resource_not_found',
    });
    // A key of project Q asking for project P's route sees nothing, as if it did not exist.
    await expect(h.call('list', merchant(Q), { params: { projectId: P } })).rejects.toMatchObject({ code: 'resource_not_found', status: 404 });
    await expect(h.call('stats', merchant(Q), { params: { projectId: P } })).rejects.toMatchObject({ code: 'resource_not_found' });
  });

  it('searches phone, e-mail and name, case-insensitively and partially', async () => {
    const search = async (text: string) => (await listP({ search: text })).data.map((c: { externalId: string }) => c.externalId).sort();
    expect(await search('AWA d')).toEqual(['cust-awa']);
    expect(await search('example.ORG')).toEqual(['cust-chloe']);
    expect(await search('670000')).toEqual(['cust-ben']);
    expect(await search('example')).toEqual(['cust-awa', 'cust-chloe']);
    expect(await search('a.b*c(')).toEqual([]);
  });

  it('sorts by every documented field and pages stably', async () => {
    const order = async (query: Record<string, string>) => (await listP(query)).data.map((c: { externalId: string }) => c.externalId);
    expect(await order({})).toEqual(['cust-awa', 'cust-ben', 'cust-chloe']);
    expect(await order({ sort_by: 'totalSpent' })).toEqual(['cust-ben', 'cust-awa', 'cust-chloe']);
    expect(await order({ sort_by: 'totalSpent', sort_order: 'asc' })).toEqual(['cust-chloe', 'cust-awa', 'cust-ben']);
    expect(await order({ sort_by: 'createdAt', sort_order: 'asc' })).toEqual(['cust-awa', 'cust-chloe', 'cust-ben']);
    expect(await order({ sort_by: 'name', sort_order: 'asc' })).toEqual(['cust-awa', 'cust-ben', 'cust-chloe']);
    const tied = await order({ sort_by: 'totalTransactions' });
    expect(tied).toHaveLength(3);
    const pages = [];
    for (const page of ['1', '2']) pages.push(...(await order({ sort_by: 'totalTransactions', per_page: '2', page })));
    expect(pages).toEqual(tied);
    const second = await listP({ per_page: '2', page: '2' });
    expect(second.meta).toEqual({ page: 2, per_page: 2, total: 3, total_pages: 2 });
    expect(second.data.map((c: { externalId: string }) => c.externalId)).toEqual(['cust-chloe']);
    expect((await listP({ page: '9' })).data).toEqual([]);
  });

  it('retrieves by id or external id and lists the transactions newest first', async () => {
    const awa = await h.call('retrieve', merchant(P), { params: { projectId: P, customerId: 'cust-awa' } });
    expect(await h.call('retrieve', merchant(P), { params: { projectId: P, customerId: awa.id } })).toEqual(awa);
    const history = await h.call('transactions', merchant(P), { params: { projectId: P, customerId: awa.id } });
    expect(history.meta).toEqual({ page: 1, per_page: 20, total: 2, total_pages: 1 });
    expect(history.data.map((t: { amount: number; status: string }) => [t.amount, t.status])).toEqual([
      [3_000, 'COMPLETED'],
      [10_000, 'PARTIALLY_REFUNDED'],
    ]);
    expect(Object.keys(history.data[0]).sort()).toEqual(
      ['amount', 'completedAt', 'createdAt', 'currency', 'id', 'paymentMethod', 'status', 'token'].sort(),
    );
    const paged = await h.call('transactions', merchant(P), { params: { projectId: P, customerId: 'cust-awa' }, query: { per_page: '1', page: '2' } });
    expect(paged.data.map((t: { amount: number }) => t.amount)).toEqual([10_000]);
    expect(paged.meta.total_pages).toBe(2);
  });

  it('computes statistics over the last 30 days', async () => {
    const stats = await h.call('stats', merchant(P), { params: { projectId: P } });
    expect(stats).toMatchObject({
      totalCustomers: 3,
      newCustomers: 1,
      activeCustomers: 2,
      totalTransactions: 6,
      totalSpent: 30_500,
      averageSpent: 10_166.67,
      period: { days: 30 },
    });
    expect(stats.topCustomers.map((c: { externalId: string }) => c.externalId)).toEqual(['cust-ben', 'cust-awa']);
  });

  it('changes nothing when every event is delivered again', async () => {
    const before = await everything();
    await h.republish(events);
    await h.republish([...events].reverse());
    await h.settled();
    expect(await everything()).toEqual(before);
  });

  it('rebuilds identical profiles from the stream, also while events keep coming', async () => {
    const before = await everything();
    const rebuilt = await h.call('rebuild', { kind: 'admin' });
    expect(rebuilt).toMatchObject({ customers: 5, transactions: 11 });
    expect(rebuilt.events).toBeGreaterThanOrEqual(events.length * 3);
    expect(await everything()).toEqual(before);

    const late = paymentLife(snapshot({ customerId: 'cust-ben', projectId: P, amount: 1_500, createdAt: daysAgo(0) }), 'COMPLETED');
    const [again] = await Promise.all([h.call('rebuild', { kind: 'admin' }), h.publish(late)]);
    expect(again.customers).toBe(5);
    await h.settled();
    const ben = await h.call('retrieve', merchant(P), { params: { projectId: P, customerId: 'cust-ben' } });
    expect(ben).toMatchObject({ totalTransactions: 3, totalSpent: 21_500 });
  });
});
