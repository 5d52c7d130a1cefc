import { beforeAll, describe, expect, it } from 'vitest';
import { SPEC_PAYMENT_FIELDS } from '@mmp/platform/testing';
import { useShop } from '../support/shop.js';
import { api } from '../support/http.js';
import { createPayment, expectSimpleError, payAndSettle, type CreatedPayment } from './helpers.js';

type ListItem = {
  id: string;
  token: string;
  status: string;
  events?: { type: string }[];
  customer?: { id: string | null; email: string | null; phone: string | null; name: string | null } | null;
  project?: { id: string; name: string };
  refunds?: unknown[];
};
type List = { data: ListItem[]; has_more: boolean; meta: { limit: number; total: number; page?: number } };

const shop = useShop('List Shop');
const { merchant } = shop;
/** p[0] is the oldest; `newest` is the expected list order. */
const p: CreatedPayment[] = [];
let newest: CreatedPayment[];

beforeAll(async () => {
  p.push(
    await createPayment(merchant, {
      amount: 1000,
      reference: 'alpha-001',
      customer: { name: 'Awa Ndiaye', phone: '+237690000011' },
    }),
  );
  p.push(await createPayment(merchant, { amount: 2000, currency: 'XOF', reference: 'beta-002' }));
  p.push(await createPayment(merchant, { amount: 3000, reference: 'gamma-003' }));
  p.push(await createPayment(merchant, { amount: 4000 }));
  p.push(await createPayment(merchant, { amount: 5000 }));
  p.push(await createPayment(merchant, { amount: 6000, currency: 'XOF', customer: { name: 'Paul Mbarga' } }));
  await createPayment(api(shop.system.baseUrl, shop.project.liveSecretKey), {
    amount: 9999,
    reference: 'alpha-001',
  });
  await payAndSettle(shop.system.baseUrl, merchant, p[2]!, '+237690000001', 'COMPLETED');
  await payAndSettle(shop.system.baseUrl, merchant, p[3]!, '+237690000002', 'FAILED');
  expect((await merchant('POST', `/v1/payments/${p[4]!.token}/cancel`)).status).toBe(200);
  newest = [...p].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}, 60_000);

const list = (query = '') => merchant<List>('GET', `/v1/payments${query}`);
const tokensOf = async (query: string) => {
  const response = await list(query);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data.map((item) => item.token);
};
const tokens = (...indexes: number[]) =>
  newest.filter((x) => indexes.includes(p.indexOf(x))).map((x) => x.token);

describe('GET /v1/payments', () => {
  it('lists this environment newest first, list-item fields only, with meta in page mode', async () => {
    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body.data.map((x) => x.token)).toEqual(newest.map((x) => x.token));
    expect(Object.keys(all.body.data[0]!).sort()).toEqual([...SPEC_PAYMENT_FIELDS.listItem].sort());
    expect(all.body.has_more).toBe(false);
    expect(all.body.meta).toEqual({ limit: 20, total: 6, page: 1 });
    const live = await api(shop.system.baseUrl, shop.project.liveSecretKey)<List>('GET', '/v1/payments');
    expect(live.body.meta.total).toBe(1);
  });

  it('filters by status, paymentMethod, currency and amount range', async () => {
    expect(await tokensOf('?status=COMPLETED')).toEqual(tokens(2));
    expect(await tokensOf('?status=FAILED')).toEqual(tokens(3));
    expect(await tokensOf('?status=CANCELLED')).toEqual(tokens(4));
    expect(await tokensOf('?status=PENDING')).toEqual(tokens(0, 1, 5));
    expect(await tokensOf('?status=EXPIRED')).toEqual([]);
    expect(await tokensOf('?paymentMethod=ORANGE_MONEY')).toEqual(tokens(2, 3));
    expect(await tokensOf('?paymentMethod=UNKNOWN')).toEqual(tokens(0, 1, 4, 5));
    expect(await tokensOf('?currency=XOF')).toEqual(tokens(1, 5));
    expect(await tokensOf('?minAmount=3000&maxAmount=5000')).toEqual(tokens(2, 3, 4));
    expect(await tokensOf('?minAmount=6000')).toEqual(tokens(5));
    expect(await tokensOf('?maxAmount=1000')).toEqual(tokens(0));
    expect(await tokensOf('?status=PENDING&currency=XOF&minAmount=3000')).toEqual(tokens(5));
    expect((await list('?currency=XOF')).body.meta.total).toBe(2);
  });

  it('filters by creation date, inclusive, as date-times or whole days', async () => {
    expect(await tokensOf(`?startDate=${encodeURIComponent(p[2]!.createdAt)}`)).toEqual(tokens(2, 3, 4, 5));
    expect(await tokensOf(`?endDate=${encodeURIComponent(p[1]!.createdAt)}`)).toEqual(tokens(0, 1));
    const range = `?startDate=${encodeURIComponent(p[1]!.createdAt)}&endDate=${encodeURIComponent(p[3]!.createdAt)}`;
    expect(await tokensOf(range)).toEqual(tokens(1, 2, 3));
    const today = p[0]!.createdAt.slice(0, 10);
    expect(await tokensOf(`?startDate=${today}&endDate=${newest[0]!.createdAt.slice(0, 10)}`)).toHaveLength(
      6,
    );
    expect(await tokensOf('?endDate=2000-01-01')).toEqual([]);
  });

  it('searches reference, token, phone and name, case-insensitively and literally', async () => {
    expect(await tokensOf('?search=ALPHA')).toEqual(tokens(0));
    expect(await tokensOf(`?search=${p[1]!.token}`)).toEqual(tokens(1));
    expect(await tokensOf('?search=690000011')).toEqual(tokens(0));
    expect(await tokensOf(`?search=${encodeURIComponent('+237690000001')}`)).toEqual(tokens(2));
    expect(await tokensOf('?search=%2B2376900000')).toEqual(tokens(0, 2, 3));
    expect(await tokensOf('?search=mbarga')).toEqual(tokens(5));
    expect(await tokensOf('?search=a.*')).toEqual([]);
    expect(await tokensOf('?search=nobody')).toEqual([]);
  });

  it('pages with starting_after and ending_before cursors and has_more', async () => {
    const first = await list('?limit=2');
    expect(first.body.data.map((x) => x.token)).toEqual(newest.slice(0, 2).map((x) => x.token));
    expect(first.body).toMatchObject({ has_more: true, meta: { limit: 2, total: 6, page: 1 } });
    const second = await list(`?limit=2&starting_after=${first.body.data[1]!.id}`);
    expect(second.body.data.map((x) => x.token)).toEqual(newest.slice(2, 4).map((x) => x.token));
    expect(second.body.has_more).toBe(true);
    expect(second.body.meta).toEqual({ limit: 2, total: 6 });
    const third = await list(`?limit=2&starting_after=${second.body.data[1]!.id}`);
    expect(third.body.data.map((x) => x.token)).toEqual(newest.slice(4, 6).map((x) => x.token));
    expect(third.body.has_more).toBe(false);
    const back = await list(`?limit=2&ending_before=${third.body.data[0]!.id}`);
    expect(back.body.data.map((x) => x.token)).toEqual(newest.slice(2, 4).map((x) => x.token));
    expect(back.body.has_more).toBe(true);
    const start = await list(`?limit=2&ending_before=${newest[2]!.id}`);
    expect(start.body.data.map((x) => x.token)).toEqual(newest.slice(0, 2).map((x) => x.token));
    expect(start.body.has_more).toBe(false);
    const filtered = await list(`?status=PENDING&limit=1&starting_after=${newest[0]!.id}`);
    expect(filtered.body.data.map((x) => x.token)).toEqual(tokens(1));
    // A cursor wins over page.
    expect((await list(`?limit=2&page=3&starting_after=${first.body.data[1]!.id}`)).body.data).toEqual(
      second.body.data,
    );
  });

  it('pages with page and limit', async () => {
    const page2 = await list('?limit=4&page=2');
    expect(page2.body.data.map((x) => x.token)).toEqual(newest.slice(4).map((x) => x.token));
    expect(page2.body).toMatchObject({ has_more: false, meta: { limit: 4, total: 6, page: 2 } });
    expect((await list('?limit=4&page=1')).body.has_more).toBe(true);
    expect((await list('?page=9')).body).toMatchObject({
      data: [],
      has_more: false,
      meta: { page: 9, total: 6 },
    });
  });

  it('expands list items with expand[]', async () => {
    const expanded = await list('?status=COMPLETED&expand[]=events');
    expect(expanded.body.data[0]!.events!.map((e) => e.type)).toEqual(
      expect.arrayContaining(['payment.created', 'payment.completed']),
    );
  });

  it('expands customer, project and refunds on every list item', async () => {
    const expanded = await list('?expand[]=customer&expand[]=project&expand[]=refunds');
    expect(expanded.status, JSON.stringify(expanded.body)).toBe(200);
    expect(expanded.body.data.map((x) => x.token)).toEqual(newest.map((x) => x.token));
    const byToken = new Map(expanded.body.data.map((item) => [item.token, item]));
    expect(byToken.get(p[0]!.token)!.customer).toEqual({
      id: null,
      email: null,
      phone: '+237690000011',
      name: 'Awa Ndiaye',
    });
    expect(byToken.get(p[5]!.token)!.customer).toEqual({
      id: null,
      email: null,
      phone: null,
      name: 'Paul Mbarga',
    });
    expect(byToken.get(p[2]!.token)!.customer).toBeNull();
    for (const item of expanded.body.data) {
      expect(item.project).toEqual({ id: shop.project.id, name: 'List Shop' });
      expect(item.refunds).toEqual([]);
      expect(item).not.toHaveProperty('events');
      // Expansions add to the list item; they do not turn it into the full payment.
      expect(item).not.toHaveProperty('reference');
    }
  });

  it('expands with the single expand= form, alone or next to expand[]', async () => {
    const customer = await list(`?search=${p[0]!.token}&expand=customer`);
    expect(customer.status, JSON.stringify(customer.body)).toBe(200);
    expect(customer.body.data).toHaveLength(1);
    expect(customer.body.data[0]!.customer).toMatchObject({ name: 'Awa Ndiaye', phone: '+237690000011' });
    expect(customer.body.data[0]).not.toHaveProperty('project');
    expect(customer.body.data[0]).not.toHaveProperty('refunds');

    const mixed = await list('?status=COMPLETED&expand=project&expand[]=refunds');
    expect(mixed.body.data.map((x) => x.token)).toEqual(tokens(2));
    expect(mixed.body.data[0]).toMatchObject({
      project: { id: shop.project.id, name: 'List Shop' },
      refunds: [],
    });
    expect(mixed.body.data[0]).not.toHaveProperty('customer');
    // Another project's list expands to that shop.project.
    const other = await shop.system.createProject('Other List Shop');
    const theirs = await createPayment(api(shop.system.baseUrl, other.testSecretKey));
    const otherList = await api(shop.system.baseUrl, other.testSecretKey)<List>(
      'GET',
      '/v1/payments?expand=project',
    );
    expect(otherList.body.data.map((x) => [x.token, x.project])).toEqual([
      [theirs.token, { id: other.id, name: 'Other List Shop' }],
    ]);
  });

  it('answers 400 invalid_request for a limit outside 1 to 100 or a bad filter value', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=ten',
      'page=0',
      'status=DONE',
      'status=completed',
      'paymentMethod=CASH',
      'currency=EUR',
      'minAmount=-1',
      'minAmount=500&maxAmount=100',
      'startDate=yesterday',
      'expand[]=wallet',
      'colour=red',
      `starting_after=${newest[0]!.id}&ending_before=${newest[1]!.id}`,
    ]) {
      const body = expectSimpleError(await list(`?${query}`), 400, 'invalid_request');
      expect(body.errors, query).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: expect.any(String) })]),
      );
    }
    const limit = expectSimpleError(await list('?limit=101'), 400, 'invalid_request');
    expect(limit.errors).toEqual([expect.objectContaining({ field: 'limit' })]);
  });

  it('refuses a cursor that is not a payment of this project and environment', async () => {
    const live = await api(shop.system.baseUrl, shop.project.liveSecretKey)<List>('GET', '/v1/payments');
    expectSimpleError(await list(`?starting_after=${live.body.data[0]!.id}`), 400, 'invalid_request');
    expectSimpleError(
      await list('?ending_before=00000000-0000-4000-8000-000000000000'),
      400,
      'invalid_request',
    );
  });
});
