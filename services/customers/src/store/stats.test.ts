import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCustomerTestStore, type CustomerTestStore } from '../../test/store.js';
import { customerStats, statsWindowStart, TOP_CUSTOMERS } from '../domain/stats.js';
import type { Customer } from '../domain/views.js';
import type { CustomerStore } from './customers.js';

/**
 * A project's statistics are counted and summed by the store, so that a dashboard over a
 * large project reads a handful of customers. They must still say exactly what the rule
 * over every customer says: this test writes customers with ties, zero spend and no
 * completed payment, in two projects, and compares.
 */

const NOW = new Date('2026-06-30T12:00:00.000Z');
const scope = { projectId: 'shop', livemode: false };
const day = (d: number) => new Date(Date.UTC(2026, 5, d)).toISOString();

let opened: CustomerTestStore;
let reads: CustomerTestStore['reads'];
let customers: CustomerStore;
const written: Customer[] = [];

beforeAll(async () => {
  opened = await openCustomerTestStore('stats');
  ({ reads, customers } = opened);
  for (let i = 0; i < 40; i += 1) {
    const project = i % 4 === 3 ? { projectId: 'other', livemode: false } : scope;
    const customer: Customer = {
      id: `cus_${String(i).padStart(2, '0')}`,
      externalId: `ext-${i}`,
      ...project,
      email: null,
      phone: null,
      name: i % 5 ? `Shopper ${i}` : null,
      metadata: {},
      // Ties on spend, and on spend and payments together, and customers who spent nothing.
      totalSpent: i % 6 === 0 ? 0 : 1_000 * (i % 7),
      totalTransactions: i % 6 === 0 ? 0 : 1 + (i % 3),
      lastTransactionAt: i % 6 === 0 ? null : day(-28 + ((i * 11) % 57)),
      createdAt: day(-28 + ((i * 7) % 57)),
      updatedAt: day(29),
    };
    await customers.insertCustomer(customer);
    if (customer.projectId === scope.projectId) written.push(customer);
  }
});

afterAll(() => opened.close());

/** The rule, over every customer of the project. */
function expected(all: Customer[]) {
  const from = statsWindowStart(NOW);
  const top = all
    .filter((c) => c.totalSpent > 0)
    .sort(
      (a, b) =>
        b.totalSpent - a.totalSpent || b.totalTransactions - a.totalTransactions || (a.id < b.id ? -1 : 1),
    )
    .slice(0, TOP_CUSTOMERS);
  return customerStats({
    totalCustomers: all.length,
    newCustomers: all.filter((c) => c.createdAt >= from).length,
    activeCustomers: all.filter((c) => c.lastTransactionAt !== null && c.lastTransactionAt >= from).length,
    totalSpent: all.reduce((sum, c) => sum + c.totalSpent, 0),
    top,
  });
}

describe("a project's customer statistics", () => {
  it('say what the rule over every customer says, reading only the top customers', async () => {
    reads.reset();
    const stats = customerStats(await customers.statsFigures(scope, statsWindowStart(NOW)));
    expect(reads.read()).toBe(TOP_CUSTOMERS);
    expect(stats).toEqual(expected(written));
    expect(stats.totalCustomers).toBe(30);
    // The dates straddle the window, so each count is a part of the customers.
    for (const count of [stats.newCustomersLast30Days, stats.activeCustomersLast30Days]) {
      expect(count).toBeGreaterThan(0);
      expect(count).toBeLessThan(30);
    }
  });

  it('are zero for a project without customers', async () => {
    const stats = customerStats(
      await customers.statsFigures({ projectId: 'empty', livemode: false }, statsWindowStart(NOW)),
    );
    expect(stats).toEqual({
      totalCustomers: 0,
      newCustomersLast30Days: 0,
      activeCustomersLast30Days: 0,
      totalSpent: 0,
      averageSpent: 0,
      topCustomers: [],
    });
  });
});
