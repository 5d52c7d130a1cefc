import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { startSystem, type ProjectKeys, type RunningSystem } from './support/system.js';
import { api } from './support/http.js';

type Customer = {
  id: string;
  externalId: string;
  email?: string;
  name?: string;
  totalTransactions: number;
  totalSpent: number;
};
type CustomerList = {
  data: Customer[];
  meta: { page: number; per_page: number; total: number; total_pages: number };
};

let system: RunningSystem;
let shop: ProjectKeys;
let other: ProjectKeys;

/** A real payment: created by the merchant, paid by the shopper with a sandbox number. */
async function pay(customerId: string, customer: Record<string, string>, amount: number, phone: string) {
  const created = await api(system.baseUrl, shop.testSecretKey)<{ token: string; paymentUrl: string }>(
    'POST',
    '/v1/payments',
    {
      amount,
      description: 'Order',
      customerId,
      customer,
    },
  );
  expect(created.status).toBe(201);
  const sessionId = new URL(created.body.paymentUrl).pathname.split('/').pop();
  const paid = await api(system.baseUrl)('POST', `/v1/checkout/sessions/${sessionId}/pay`, {
    paymentMethod: 'ORANGE_MONEY',
    phone,
  });
  expect(paid.status).toBeLessThan(300);
  return created.body.token;
}

beforeAll(async () => {
  system = await startSystem();
  shop = await system.createProject('Customers Shop');
  other = await system.createProject('Other Shop');
  const merchant = api(system.baseUrl, shop.testSecretKey);
  const awa = { email: 'awa@example.cm', name: 'Awa Ndiaye', phone: '+237690000001' };
  const tokens = [
    await pay('cust-awa', awa, 5000, '+237690000001'),
    await pay('cust-awa', awa, 2500, '+237690000001'),
    await pay('cust-paul', { email: 'paul@example.cm', name: 'Paul Biya' }, 10000, '+237690000001'),
    await pay('cust-paul', { email: 'paul@example.cm', name: 'Paul Biya' }, 7000, '+237690000002'),
  ];
  await eventually(async () => {
    const statuses = await Promise.all(
      tokens.map(async (t) => (await merchant<{ status: string }>('GET', `/v1/payments/${t}`)).body.status),
    );
    return statuses.every((s) => s === 'COMPLETED' || s === 'FAILED');
  }, 30_000);
  await eventually(async () => {
    const list = await merchant<CustomerList>('GET', `/v1/projects/${shop.id}/customers`);
    return (
      list.body.data?.find((c) => c.externalId === 'cust-awa')?.totalTransactions === 2 &&
      list.body.data.find((c) => c.externalId === 'cust-paul')?.totalTransactions === 1
    );
  }, 15_000);
}, 90_000);

afterAll(async () => {
  await system?.stop();
});

describe('customer profiles built from real payments', () => {
  const customers = (query = '', key = () => shop.testSecretKey, projectId = () => shop.id) =>
    api(system.baseUrl, key())<CustomerList>('GET', `/v1/projects/${projectId()}/customers${query}`);

  it('counts completed payments and what they brought in', async () => {
    const list = await customers('?sort_by=totalSpent&sort_order=desc');
    expect(list.status).toBe(200);
    expect(list.body.data.map((c) => [c.externalId, c.totalTransactions, c.totalSpent])).toEqual([
      ['cust-paul', 1, 10000],
      ['cust-awa', 2, 7500],
    ]);
    expect(list.body.meta).toEqual({ page: 1, per_page: 20, total: 2, total_pages: 1 });
  });

  it('finds customers by partial, case-insensitive name or e-mail, and pages', async () => {
    expect((await customers('?search=NDIA')).body.data.map((c) => c.externalId)).toEqual(['cust-awa']);
    expect((await customers('?search=paul@')).body.data.map((c) => c.externalId)).toEqual(['cust-paul']);
    const page2 = await customers('?per_page=1&page=2&sort_by=name&sort_order=asc');
    expect(page2.body.data.map((c) => c.externalId)).toEqual(['cust-paul']);
    expect(page2.body.meta.total_pages).toBe(2);
  });

  it('shows statistics and each customer history', async () => {
    const stats = await api(system.baseUrl, shop.testSecretKey)<{
      totalCustomers: number;
      totalSpent: number;
    }>('GET', `/v1/projects/${shop.id}/customers/stats`);
    expect(stats.body).toMatchObject({ totalCustomers: 2, totalSpent: 17500 });
    const paul = (await customers('?search=paul')).body.data[0]!;
    const history = await api(system.baseUrl, shop.testSecretKey)<{
      data: { status: string; amount: number }[];
    }>('GET', `/v1/projects/${shop.id}/customers/${paul.id}/transactions`);
    expect(history.body.data.map((p) => [p.status, p.amount]).sort()).toEqual([
      ['COMPLETED', 10000],
      ['FAILED', 7000],
    ]);
  });

  it('refuses bad parameters and hides customers from other projects and environments', async () => {
    const bad = await customers('?per_page=500');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_request', http_status: 400 } });
    expect((await customers('', () => other.testSecretKey)).status).toBe(404);
    expect((await customers('', () => shop.liveSecretKey)).body.data).toEqual([]);
    const unknown = await api(system.baseUrl, shop.testSecretKey)(
      'GET',
      `/v1/projects/${shop.id}/customers/nobody`,
    );
    expect(unknown.status).toBe(404);
  });

  it('rebuilds the projection from the event stream with identical results', async () => {
    const before = (await customers('?sort_by=name&sort_order=asc')).body.data;
    const rebuilt = await system.admin<{ customers: number }>('POST', '/v1/admin/customers/rebuild');
    expect(rebuilt.customers).toBeGreaterThanOrEqual(2);
    const after = (await customers('?sort_by=name&sort_order=asc')).body.data;
    expect(after).toEqual(before);
  });
});
