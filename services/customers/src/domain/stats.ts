import type { CustomerStats } from '@mmp/protocol';
import { customerView, type Customer } from './views.js';

export const STATS_WINDOW_DAYS = 30;
export const TOP_CUSTOMERS = 5;

/**
 * Statistics of one project and environment. New customers had their first payment in
 * the last 30 days, active ones a completed payment; the average is spend per customer,
 * to the centime; the top customers are those who spent most (ties: more payments, id).
 */
export function computeStats(customers: Customer[], now: Date): CustomerStats {
  const from = new Date(now.getTime() - STATS_WINDOW_DAYS * 24 * 3600 * 1000).toISOString();
  const totalSpent = customers.reduce((sum, c) => sum + c.totalSpent, 0);
  const top = customers
    .filter((c) => c.totalSpent > 0)
    .sort(
      (a, b) =>
        b.totalSpent - a.totalSpent || b.totalTransactions - a.totalTransactions || a.id.localeCompare(b.id),
    )
    .slice(0, TOP_CUSTOMERS);
  return {
    totalCustomers: customers.length,
    newCustomersLast30Days: customers.filter((c) => c.createdAt >= from).length,
    activeCustomersLast30Days: customers.filter(
      (c) => c.lastTransactionAt !== null && c.lastTransactionAt >= from,
    ).length,
    totalSpent,
    averageSpent: customers.length ? Math.round((totalSpent / customers.length) * 100) / 100 : 0,
    topCustomers: top.map(customerView),
  };
}
