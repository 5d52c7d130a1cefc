import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import {
  CustomerList,
  type CustomerProfile,
  CustomerStats,
  CustomerTransactions,
  type PaymentListItem,
} from '@mmp/protocol';
import { startSystem, type ProjectKeys, type RunningSystem } from './support/system.js';
import { api, createPayment } from './support/http.js';
import { payOnHostedPage } from './support/shopper.js';

type Contact = { email: string; name: string; phone: string };
type SettledPayment = PaymentListItem & { status: 'COMPLETED' | 'FAILED' };

let system: RunningSystem;
let shop: ProjectKeys;
let other: ProjectKeys;

const AWA: Contact = { email: 'awa@example.cm', name: 'Awa Ndiaye', phone: '+237690000001' };
const PAUL: Contact = { email: 'paul@example.cm', name: 'Paul Biya', phone: '+237690000001' };
const DORA: Contact = { email: 'dora@example.cm', name: 'Dora Ekane', phone: '+237690000002' };
const CHANTAL: Contact = { email: 'chantal@example.cm', name: 'Chantal Mvondo', phone: '+237670000001' };

const merchant = () => api(system.baseUrl, shop.testSecretKey);

/**
 * A real payment: created by the merchant, paid by the shopper on the hosted page's route
 * with a sandbox number (+23767… on MTN MoMo, others on Orange Money), and waited for
 * until it is COMPLETED or FAILED, so that payments settle in the order they are made.
 */
async function pay(customerId: string, customer: Contact, amount: number, phone: string) {
  const created = await createPayment(merchant(), { amount, description: 'Order', customerId, customer });
  await payOnHostedPage(system.baseUrl, created, phone);
  return eventually(async () => {
    const payment = (await merchant()<SettledPayment>('GET', `/v1/payments/${created.token}`)).body;
    return ['COMPLETED', 'FAILED'].includes(payment.status) && payment;
  }, 30_000);
}

/** The payments of each customer, oldest first, as the payments API reports them. */
const payments: Record<string, SettledPayment[]> = {};

beforeAll(async () => {
  system = await startSystem();
  shop = await system.createProject('Customers Shop');
  other = await system.createProject('Other Shop');
  // Sequential on purpose: creation order and completion order are both known.
  const plan: [string, Contact, number, string][] = [
    ['cust-awa', AWA, 5000, '+237690000001'],
    ['cust-paul', PAUL, 10000, '+237690000001'],
    ['cust-dora', DORA, 4000, '+237690000002'],
    ['cust-chantal', CHANTAL, 1000, '+237670000001'],
    ['cust-chantal', CHANTAL, 1500, '+237670000001'],
    ['cust-paul', PAUL, 7000, '+237690000002'],
    ['cust-chantal', CHANTAL, 2000, '+237670000001'],
    ['cust-awa', AWA, 2500, '+237690000001'],
  ];
  for (const [customerId, contact, amount, phone] of plan) {
    (payments[customerId] ??= []).push(await pay(customerId, contact, amount, phone));
  }
  // The projection is asynchronous: wait until the last payment of each customer shows.
  await eventually(async () => {
    const list = await merchant()<CustomerList>('GET', `/v1/projects/${shop.id}/customers?per_page=100`);
    const counts = Object.fromEntries(list.body.data?.map((c) => [c.externalId, c.totalTransactions]) ?? []);
    return (
      counts['cust-awa'] === 2 &&
      counts['cust-paul'] === 1 &&
      counts['cust-chantal'] === 3 &&
      counts['cust-dora'] === 0
    );
  }, 15_000);
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

const customers = (query = '', key = () => shop.testSecretKey, projectId = () => shop.id) =>
  api(system.baseUrl, key())<CustomerList>('GET', `/v1/projects/${projectId()}/customers${query}`);
const externalIds = async (query: string) => (await customers(query)).body.data.map((c) => c.externalId);
const customerWithExternalId = async (externalId: string) =>
  (await customers('?per_page=100')).body.data.find((c) => c.externalId === externalId)!;

describe('customer profiles built from real payments', () => {
  it('counts completed payments and what they brought in, with the contact last used', async () => {
    const list = await customers('?sort_by=totalSpent&sort_order=desc');
    expect(list.status).toBe(200);
    expect(() => CustomerList.parse(list.body)).not.toThrow();
    expect(list.body.data.map((c) => [c.externalId, c.totalTransactions, c.totalSpent])).toEqual([
      ['cust-paul', 1, 10000],
      ['cust-awa', 2, 7500],
      ['cust-chantal', 3, 4500],
      ['cust-dora', 0, 0],
    ]);
    expect(list.body.meta).toEqual({ page: 1, per_page: 20, total: 4, total_pages: 1 });
    // Paul's latest payment (failed) was paid from another phone than the one he gave.
    const paul = list.body.data[0]!;
    expect(paul).toMatchObject({ email: PAUL.email, name: PAUL.name, phone: '+237690000002' });
    expect(paul.createdAt).toBe(payments['cust-paul']![0]!.createdAt);
  });

  it('finds customers by partial, case-insensitive name, e-mail or phone', async () => {
    expect(await externalIds('?search=NDIA')).toEqual(['cust-awa']);
    expect(await externalIds('?search=cHaNtAl%20mV')).toEqual(['cust-chantal']);
    expect(await externalIds('?search=PAUL%40EXAMPLE')).toEqual(['cust-paul']);
    expect(await externalIds('?search=670000')).toEqual(['cust-chantal']);
    expect(await externalIds('?search=%2B237690000002&sort_by=name&sort_order=asc')).toEqual([
      'cust-dora',
      'cust-paul',
    ]);
    expect(await externalIds('?search=0000001&sort_by=name&sort_order=asc')).toEqual([
      'cust-awa',
      'cust-chantal',
    ]);
    const none = await customers('?search=nobody-here');
    expect(none.body).toEqual({ data: [], meta: { page: 1, per_page: 20, total: 0, total_pages: 0 } });
  });

  it('sorts by last transaction, newest first by default, customers without one last', async () => {
    const completedAt = (id: string, index: number) => payments[id]![index]!.completedAt;
    const list = (await customers()).body.data;
    expect(list.map((c) => [c.externalId, c.lastTransactionAt])).toEqual([
      ['cust-awa', completedAt('cust-awa', 1)],
      ['cust-chantal', completedAt('cust-chantal', 2)],
      ['cust-paul', completedAt('cust-paul', 0)],
      ['cust-dora', null],
    ]);
    expect(completedAt('cust-paul', 0)! < completedAt('cust-chantal', 2)!).toBe(true);
    expect(await externalIds('?sort_by=lastTransactionAt&sort_order=asc')).toEqual([
      'cust-dora',
      'cust-paul',
      'cust-chantal',
      'cust-awa',
    ]);
  });

  it('sorts by first payment and by number of payments, both ways', async () => {
    const byCreation = ['cust-awa', 'cust-paul', 'cust-dora', 'cust-chantal'];
    expect(await externalIds('?sort_by=createdAt&sort_order=asc')).toEqual(byCreation);
    expect(await externalIds('?sort_by=createdAt&sort_order=desc')).toEqual([...byCreation].reverse());
    const byCount = ['cust-dora', 'cust-paul', 'cust-awa', 'cust-chantal'];
    expect(await externalIds('?sort_by=totalTransactions&sort_order=asc')).toEqual(byCount);
    expect(await externalIds('?sort_by=totalTransactions&sort_order=desc')).toEqual([...byCount].reverse());
  });

  it('pages through customers without repeating or skipping one', async () => {
    const pages = await Promise.all(
      [1, 2, 3, 4].map((page) => customers(`?per_page=1&page=${page}&sort_by=name&sort_order=asc`)),
    );
    expect(pages.map((p) => p.body.data.map((c) => c.externalId))).toEqual([
      ['cust-awa'],
      ['cust-chantal'],
      ['cust-dora'],
      ['cust-paul'],
    ]);
    expect(pages[1]!.body.meta).toEqual({ page: 2, per_page: 1, total: 4, total_pages: 4 });
    expect((await customers('?per_page=3&page=3')).body.data).toEqual([]);
  });

  it('shows statistics of the project: totals, new and active customers, average, top spenders', async () => {
    const stats = await merchant()<CustomerStats>('GET', `/v1/projects/${shop.id}/customers/stats`);
    expect(stats.status).toBe(200);
    expect(() => CustomerStats.parse(stats.body)).not.toThrow();
    const profiles = (await customers('?sort_by=totalSpent&sort_order=desc')).body.data;
    expect(stats.body).toEqual({
      totalCustomers: 4,
      newCustomersLast30Days: 4,
      // Dora never completed a payment.
      activeCustomersLast30Days: 3,
      totalSpent: 22000,
      averageSpent: 5500,
      topCustomers: profiles.filter((c) => c.externalId !== 'cust-dora'),
    });
    expect(stats.body.topCustomers.map((c) => c.externalId)).toEqual([
      'cust-paul',
      'cust-awa',
      'cust-chantal',
    ]);
  });

  it('shows one customer and its payment history, newest first, failed ones included', async () => {
    const listItem = (p: SettledPayment): PaymentListItem => ({
      id: p.id,
      token: p.token,
      amount: p.amount,
      currency: p.currency,
      status: p.status,
      paymentMethod: p.paymentMethod,
      createdAt: p.createdAt,
      completedAt: p.completedAt,
      // The customer's history says why a payment failed, as the payment does.
      failureCode: p.failureCode,
      failureMessage: p.failureMessage,
    });
    for (const externalId of ['cust-awa', 'cust-paul', 'cust-dora', 'cust-chantal']) {
      const customer = await customerWithExternalId(externalId);
      const one = await merchant()<CustomerProfile>(
        'GET',
        `/v1/projects/${shop.id}/customers/${customer.id}`,
      );
      expect(one.body).toEqual(customer);
      const history = await merchant()<CustomerTransactions>(
        'GET',
        `/v1/projects/${shop.id}/customers/${customer.id}/transactions`,
      );
      expect(() => CustomerTransactions.parse(history.body)).not.toThrow();
      expect(history.body.data).toEqual(payments[externalId]!.map(listItem).reverse());
    }
    const paul = await customerWithExternalId('cust-paul');
    const statuses = await merchant()<CustomerTransactions>(
      'GET',
      `/v1/projects/${shop.id}/customers/${paul.id}/transactions`,
    );
    expect(statuses.body.data.map((p) => [p.status, p.amount])).toEqual([
      ['FAILED', 7000],
      ['COMPLETED', 10000],
    ]);
    const chantal = await customerWithExternalId('cust-chantal');
    const page2 = await merchant()<CustomerTransactions>(
      'GET',
      `/v1/projects/${shop.id}/customers/${chantal.id}/transactions?per_page=2&page=2`,
    );
    expect(page2.body.data.map((p) => p.amount)).toEqual([1000]);
    expect(page2.body.meta).toEqual({ page: 2, per_page: 2, total: 3, total_pages: 2 });
  });
});

describe('what a merchant cannot see or ask', () => {
  it.each([
    ['an unknown sort field', '?sort_by=amount'],
    ['an unknown sort order', '?sort_order=up'],
    ['page 0', '?page=0'],
    ['a page that is not a number', '?page=abc'],
    ['0 per page', '?per_page=0'],
    ['more than 100 per page', '?per_page=500'],
  ])('refuses %s with 400 invalid_request', async (_what, query) => {
    const bad = await customers(query);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_request', http_status: 400 } });
  });

  it('refuses bad paging of a history and answers 404 for unknown customers', async () => {
    const awa = await customerWithExternalId('cust-awa');
    const base = `/v1/projects/${shop.id}/customers`;
    expect((await merchant()('GET', `${base}/${awa.id}/transactions?per_page=0`)).status).toBe(400);
    expect((await merchant()('GET', `${base}/${awa.id}/transactions?page=abc`)).status).toBe(400);
    const unknown = await merchant()('GET', `${base}/nobody`);
    expect(unknown.status).toBe(404);
    const unknownHistory = await merchant()('GET', `${base}/nobody/transactions`);
    expect(unknownHistory.status).toBe(404);
    expect(unknownHistory.body).toMatchObject({ error: { http_status: 404 } });
  });

  it('hides customers from the keys of other projects and of the other environment', async () => {
    const awa = await customerWithExternalId('cust-awa');
    const otherKey = () => other.testSecretKey;
    expect((await customers('', otherKey)).status).toBe(404);
    expect((await customers('/stats', otherKey)).status).toBe(404);
    expect((await customers(`/${awa.id}`, otherKey)).status).toBe(404);
    expect((await customers(`/${awa.id}/transactions`, otherKey)).status).toBe(404);
    // Through its own project, the other key does not reach this project's customers either.
    expect((await customers(`/${awa.id}`, otherKey, () => other.id)).status).toBe(404);
    expect((await customers('', otherKey, () => other.id)).body.data).toEqual([]);
    expect((await customers('', () => shop.liveSecretKey)).body.data).toEqual([]);
  });
});
