import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_PAYMENT_FIELDS, metricSample } from '@mmp/platform/testing';
import type { PendingEvent } from '@mmp/protocol';
import { CustomerProfile, CustomerStats } from '@mmp/protocol';
import { createPaymentProjector } from '../src/handlers/project-payment.js';
import { createCustomerStore, SUMMARIZE_READING_UP_TO } from '../src/store/customers.js';
import { paymentEvent, paymentLife, snapshot } from './fixtures.js';
import { merchant, startHarness, type Harness } from './harness.js';

const P = '11111111-1111-4111-8111-111111111111';
const Q = '22222222-2222-4222-8222-222222222222';
const R = '33333333-3333-4333-8333-333333333333';
const S = '44444444-4444-4444-8444-444444444444';
const NOW = Date.now();
const daysAgo = (days: number) => new Date(NOW - days * 24 * 3600 * 1000).toISOString();

/**
 * Project P, sandbox: Awa (two completed, one partially refunded), Ben (one completed, one
 * failed), a nameless customer (one pending, one expired), and a payment with no customer.
 * Awa also exists in production and in project Q, which must stay apart.
 */
function scenario(P: string): PendingEvent[] {
  const awa = {
    customerId: 'cust-awa',
    payerName: 'Awa Diallo',
    payerEmail: 'awa@example.com',
    payerPhone: '+237690000001',
  };
  return [
    ...paymentLife(
      snapshot({ ...awa, projectId: P, amount: 10_000, createdAt: daysAgo(60) }),
      'COMPLETED',
      [2_500],
    ),
    ...paymentLife(snapshot({ ...awa, projectId: P, amount: 3_000, createdAt: daysAgo(2) }), 'COMPLETED'),
    ...paymentLife(
      snapshot({
        customerId: 'cust-ben',
        payerName: 'Ben Mbarga',
        payerPhone: '+237670000001',
        projectId: P,
        amount: 20_000,
        createdAt: daysAgo(10),
      }),
      'COMPLETED',
    ),
    ...paymentLife(
      snapshot({
        customerId: 'cust-ben',
        payerPhone: '+237670000001',
        projectId: P,
        amount: 5_000,
        createdAt: daysAgo(9),
      }),
      'FAILED',
    ),
    ...paymentLife(
      snapshot({
        customerId: 'cust-chloe',
        payerEmail: 'Chloe@Example.org',
        payerPhone: '+237690000005',
        projectId: P,
        amount: 1_000,
        createdAt: daysAgo(50),
      }),
      'PENDING',
    ),
    ...paymentLife(
      snapshot({
        customerId: 'cust-chloe',
        payerPhone: '+237690000005',
        projectId: P,
        amount: 4_000,
        createdAt: daysAgo(45),
      }),
      'EXPIRED',
    ),
    ...paymentLife(
      snapshot({ customerId: null, projectId: P, amount: 9_999, createdAt: daysAgo(1) }),
      'COMPLETED',
    ),
    ...paymentLife(
      snapshot({ ...awa, projectId: P, livemode: true, amount: 777, createdAt: daysAgo(3) }),
      'COMPLETED',
    ),
    ...paymentLife(snapshot({ ...awa, projectId: Q, amount: 555, createdAt: daysAgo(4) }), 'COMPLETED'),
  ];
}

let h: Harness;
let events: PendingEvent[];

/** Everything a merchant can read, for before/after comparisons. */
async function everything(
  scopes: (readonly [string, boolean])[] = [
    [P, false],
    [P, true],
    [Q, false],
    [R, false],
    [S, false],
  ],
) {
  const result: Record<string, unknown> = {};
  for (const [projectId, livemode] of scopes) {
    const actor = merchant(projectId, livemode);
    const list = await h.call('list', actor, {
      params: { projectId },
      query: { per_page: '100', sort_by: 'createdAt' },
    });
    const histories = [];
    for (const customer of list.data) {
      histories.push(
        await h.call('transactions', actor, {
          params: { projectId, customerId: customer.id },
          query: { per_page: '100' },
        }),
      );
    }
    result[`${projectId}:${livemode}`] = { list, histories };
  }
  return result;
}

beforeAll(async () => {
  h = await startHarness('customers');
  events = scenario(P);
  await h.publish(events);
  await h.settled();
});

afterAll(async () => {
  await h?.stop();
});

const listP = (query: Record<string, string> = {}) =>
  h.call('list', merchant(P), { params: { projectId: P }, query });

describe('projection of payment events', () => {
  it('builds one profile per customer with exact totals', async () => {
    const { data, meta } = await listP();
    expect(meta).toEqual({ page: 1, per_page: 20, total: 3, total_pages: 1 });
    const byExternal = Object.fromEntries(data.map((c: { externalId: string }) => [c.externalId, c]));
    expect(byExternal['cust-awa']).toMatchObject({
      projectId: P,
      name: 'Awa Diallo',
      email: 'awa@example.com',
      phone: '+237690000001',
      metadata: {},
      totalTransactions: 2,
      totalSpent: 10_000 - 2_500 + 3_000,
    });
    expect(byExternal['cust-ben']).toMatchObject({
      totalTransactions: 1,
      totalSpent: 20_000,
      name: 'Ben Mbarga',
    });
    expect(byExternal['cust-chloe']).toMatchObject({
      totalTransactions: 0,
      totalSpent: 0,
      lastTransactionAt: null,
      email: 'Chloe@Example.org',
    });
    expect(byExternal['cust-chloe']).not.toHaveProperty('name');
    expect(CustomerProfile.safeParse(byExternal['cust-awa']).success).toBe(true);
    expect(byExternal['cust-awa'].id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('passes over, unread, the events of a payment that names no customer', async () => {
    const customerless = events.filter(
      (event) => !(event.data as { payment: { customerId: string | null } }).payment.customerId,
    );
    expect(customerless.length).toBeGreaterThan(0);
    const metrics = await (await fetch(`http://127.0.0.1:${h.service.opsPort}/metrics`)).text();
    const count = (outcome: string) =>
      metricSample(metrics, 'mmp_events_handled_total', { consumer: 'customers', outcome });
    expect(count('passed_over')).toBe(customerless.length);
    expect(count('ack')).toBe(events.length - customerless.length);
  });

  it('keeps environments and projects apart', async () => {
    const live = await h.call('list', merchant(P, true), { params: { projectId: P } });
    expect(live.data.map((c: { totalSpent: number }) => c.totalSpent)).toEqual([777]);
    const other = await h.call('list', merchant(Q), { params: { projectId: Q } });
    expect(other.data.map((c: { totalSpent: number }) => c.totalSpent)).toEqual([555]);
    const testAwa = (await listP({ search: 'awa' })).data[0];
    await expect(
      h.call('retrieve', merchant(P, true), { params: { projectId: P, customerId: testAwa.id } }),
    ).rejects.toMatchObject({
      code: 'resource_not_found',
    });
    await expect(
      h.call('retrieve', merchant(Q), { params: { projectId: Q, customerId: testAwa.id } }),
    ).rejects.toMatchObject({
      code: 'resource_not_found',
    });
    // A key of project Q asking for project P's route sees nothing, as if it did not exist.
    await expect(h.call('list', merchant(Q), { params: { projectId: P } })).rejects.toMatchObject({
      code: 'resource_not_found',
      status: 404,
    });
    await expect(h.call('stats', merchant(Q), { params: { projectId: P } })).rejects.toMatchObject({
      code: 'resource_not_found',
    });
  });

  it('searches phone, e-mail and name, case-insensitively and partially', async () => {
    const search = async (text: string) =>
      (await listP({ search: text })).data.map((c: { externalId: string }) => c.externalId).sort();
    expect(await search('AWA d')).toEqual(['cust-awa']);
    expect(await search('example.ORG')).toEqual(['cust-chloe']);
    expect(await search('670000')).toEqual(['cust-ben']);
    expect(await search('example')).toEqual(['cust-awa', 'cust-chloe']);
    expect(await search('a.b*c(')).toEqual([]);
  });

  it('sorts by every documented field and pages stably', async () => {
    const order = async (query: Record<string, string>) =>
      (await listP(query)).data.map((c: { externalId: string }) => c.externalId);
    expect(await order({})).toEqual(['cust-awa', 'cust-ben', 'cust-chloe']);
    expect(await order({ sort_by: 'totalSpent' })).toEqual(['cust-ben', 'cust-awa', 'cust-chloe']);
    expect(await order({ sort_by: 'totalSpent', sort_order: 'asc' })).toEqual([
      'cust-chloe',
      'cust-awa',
      'cust-ben',
    ]);
    expect(await order({ sort_by: 'createdAt', sort_order: 'asc' })).toEqual([
      'cust-awa',
      'cust-chloe',
      'cust-ben',
    ]);
    expect(await order({ sort_by: 'name', sort_order: 'asc' })).toEqual([
      'cust-awa',
      'cust-ben',
      'cust-chloe',
    ]);
    const tied = await order({ sort_by: 'totalTransactions' });
    expect(tied).toHaveLength(3);
    const pages = [];
    for (const page of ['1', '2'])
      pages.push(...(await order({ sort_by: 'totalTransactions', per_page: '2', page })));
    expect(pages).toEqual(tied);
    const second = await listP({ per_page: '2', page: '2' });
    expect(second.meta).toEqual({ page: 2, per_page: 2, total: 3, total_pages: 2 });
    expect(second.data.map((c: { externalId: string }) => c.externalId)).toEqual(['cust-chloe']);
    expect((await listP({ page: '9' })).data).toEqual([]);
  });

  it('retrieves by id or external id and lists the transactions newest first', async () => {
    const awa = await h.call('retrieve', merchant(P), { params: { projectId: P, customerId: 'cust-awa' } });
    expect(await h.call('retrieve', merchant(P), { params: { projectId: P, customerId: awa.id } })).toEqual(
      awa,
    );
    const history = await h.call('transactions', merchant(P), {
      params: { projectId: P, customerId: awa.id },
    });
    expect(history.meta).toEqual({ page: 1, per_page: 20, total: 2, total_pages: 1 });
    expect(history.data.map((t: { amount: number; status: string }) => [t.amount, t.status])).toEqual([
      [3_000, 'COMPLETED'],
      [10_000, 'PARTIALLY_REFUNDED'],
    ]);
    expect(Object.keys(history.data[0]).sort()).toEqual([...SPEC_PAYMENT_FIELDS.listItem].sort());
    const paged = await h.call('transactions', merchant(P), {
      params: { projectId: P, customerId: 'cust-awa' },
      query: { per_page: '1', page: '2' },
    });
    expect(paged.data.map((t: { amount: number }) => t.amount)).toEqual([10_000]);
    expect(paged.meta.total_pages).toBe(2);
  });

  it('computes statistics over the last 30 days', async () => {
    const stats = await h.call('stats', merchant(P), { params: { projectId: P } });
    expect(CustomerStats.parse(stats)).toMatchObject({
      totalCustomers: 3,
      newCustomersLast30Days: 1,
      activeCustomersLast30Days: 2,
      totalSpent: 30_500,
      averageSpent: 10_166.67,
    });
    expect(stats.topCustomers.map((c: { externalId: string }) => c.externalId)).toEqual([
      'cust-ben',
      'cust-awa',
    ]);
  });

  it('gives the same profiles whatever order the events arrive in', async () => {
    const forR = scenario(R).filter((e) => e.projectId === R);
    const forS = scenario(S).filter((e) => e.projectId === S);
    // Interleave from both ends: refunds before completions, outcomes before creations.
    const shuffled = forS.map((_, i) => forS[i % 2 === 0 ? i / 2 : forS.length - 1 - (i - 1) / 2]!);
    await h.publish([...forR].reverse());
    await h.publish(shuffled);
    await h.settled();
    // Payment and customer ids differ between the projects; everything else must agree.
    const comparable = async (project: string) =>
      JSON.parse(
        JSON.stringify(await everything([[project, false]]), (key, value) =>
          key === 'id' || key === 'token' ? undefined : value,
        ).replaceAll(project, 'PROJECT'),
      );
    const inOrder = await comparable(P);
    expect(await comparable(R)).toEqual(inOrder);
    expect(await comparable(S)).toEqual(inOrder);
  });

  it('completes a profile when a redelivery follows a crash between the two steps', async () => {
    const T = '55555555-5555-4555-8555-555555555555';
    const store = createCustomerStore(h.service.context.store);
    const log = h.service.context.log;
    const crashing = createPaymentProjector({
      store: { ...store, changeCounterOf: () => Promise.reject(new Error('process died')) },
      log,
    });
    const payment = snapshot({
      projectId: T,
      customerId: 'cust-crash',
      status: 'COMPLETED',
      amount: 4_200,
      completedAt: daysAgo(1),
    });
    const event = paymentEvent('payment.completed', payment, daysAgo(1));
    await expect(crashing.apply(event, { mustRefresh: false })).rejects.toThrow('process died');
    const projector = createPaymentProjector({ store, log });
    // A first delivery finding its own record would skip the profile; a redelivery must not.
    await projector.apply(event, { mustRefresh: false });
    await expect(
      h.call('retrieve', merchant(T), { params: { projectId: T, customerId: 'cust-crash' } }),
    ).rejects.toMatchObject({
      code: 'resource_not_found',
    });
    await projector.apply(event, { mustRefresh: true });
    expect(
      await h.call('retrieve', merchant(T), { params: { projectId: T, customerId: 'cust-crash' } }),
    ).toMatchObject({
      totalTransactions: 1,
      totalSpent: 4_200,
    });
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
    expect(rebuilt).toMatchObject({ customers: 5 + 4 + 4, transactions: 8 + 7 + 7 });
    expect(rebuilt.events).toBeGreaterThanOrEqual(events.length * 3);
    expect(await everything()).toEqual(before);

    const late = paymentLife(
      snapshot({ customerId: 'cust-ben', projectId: P, amount: 1_500, createdAt: daysAgo(0) }),
      'COMPLETED',
    );
    const [again] = await Promise.all([h.call('rebuild', { kind: 'admin' }), h.publish(late)]);
    expect(again.customers).toBe(13);
    await h.settled();
    const ben = await h.call('retrieve', merchant(P), { params: { projectId: P, customerId: 'cust-ben' } });
    expect(ben).toMatchObject({ totalTransactions: 2, totalSpent: 21_500 });
  });
});

describe('errors', () => {
  const bad = (
    operation: 'list' | 'retrieve' | 'transactions',
    request: { params?: Record<string, string>; query?: Record<string, string> },
  ) => h.call(operation, merchant(P), { params: { projectId: P, ...request.params }, query: request.query });

  it.each([
    ['list', { query: { per_page: '0' } }, 'per_page'],
    ['list', { query: { per_page: '101' } }, 'per_page'],
    ['list', { query: { page: '0' } }, 'page'],
    ['list', { query: { page: 'two' } }, 'page'],
    ['list', { query: { sort_by: 'amount' } }, 'sort_by'],
    ['list', { query: { sort_order: 'random' } }, 'sort_order'],
    ['list', { query: { colour: 'blue' } }, 'colour'],
    ['transactions', { params: { customerId: 'cust-awa' }, query: { per_page: '500' } }, 'per_page'],
    ['transactions', { params: { customerId: 'cust-awa' }, query: { page: '-1' } }, 'page'],
  ] as const)('%s %j answers 400 invalid_request naming %s', async (operation, request, field) => {
    const failure = await bad(operation, request).catch((error) => error);
    expect(failure).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(failure.message).toContain(field);
  });

  it('answers 404 resource_not_found for unknown customers', async () => {
    for (const operation of ['retrieve', 'transactions'] as const) {
      await expect(bad(operation, { params: { customerId: 'nobody' } })).rejects.toMatchObject({
        code: 'resource_not_found',
        status: 404,
      });
    }
  });

  it('refuses callers that are not a merchant of the project, and rebuilds by anyone but an admin', async () => {
    await expect(h.call('list', { kind: 'public' }, { params: { projectId: P } })).rejects.toMatchObject({
      code: 'insufficient_permissions',
    });
    await expect(h.call('rebuild', merchant(P))).rejects.toMatchObject({
      code: 'insufficient_permissions',
      status: 403,
    });
  });
});

describe('a customer with many payments', () => {
  it('gets the profile its payments say, summed and sorted by the store', async () => {
    const U = '66666666-6666-4666-8666-666666666666';
    const count = SUMMARIZE_READING_UP_TO + 8;
    const lives = Array.from({ length: count }, (_, i) =>
      paymentLife(
        snapshot({
          projectId: U,
          customerId: 'cust-regular',
          amount: 1_000 + i,
          createdAt: daysAgo(count - i),
          payerName: i === count - 1 ? 'Latest Name' : i % 2 ? `Name ${i}` : null,
          payerEmail: i === 3 ? 'only@example.com' : null,
        }),
        i % 4 === 0 ? 'FAILED' : 'COMPLETED',
        i % 10 === 1 ? [500] : [],
      ),
    );
    // Outcomes before creations, and the newest payment first.
    await h.publish(lives.reverse().flatMap((life) => [...life].reverse()));
    await h.settled();
    const completed = [...Array(count).keys()].filter((i) => i % 4 !== 0);
    const refunded = completed.filter((i) => i % 10 === 1).length;
    expect(
      await h.call('retrieve', merchant(U), { params: { projectId: U, customerId: 'cust-regular' } }),
    ).toMatchObject({
      name: 'Latest Name',
      email: 'only@example.com',
      totalTransactions: completed.length,
      totalSpent: completed.reduce((sum, i) => sum + 1_000 + i, 0) - 500 * refunded,
      createdAt: daysAgo(count),
    });
  });
});
