import { customerView, type Customer } from './views.js';

export const STATS_WINDOW_DAYS = 30;
export const TOP_CUSTOMERS = 5;

/**
 * Statistics of one project and environment. "New" customers had their first payment in
 * the window, "active" ones their latest; the average is the spend per customer.
 */
export function computeStats(customers: Customer[], now: Date) {
  const from = new Date(now.getTime() - STATS_WINDOW_DAYS * 24 * 3600 * 1000).toISOString();
  const totalSpent = customers.reduce((sum, c) => sum + c.totalSpent, 0);
  const totalTransactions = customers.reduce((sum, c) => sum + c.totalTransactions, 0);
  const top = [...customers]
    .filter((c) => c.totalSpent > 0)
    .sort((a, b) => b.totalSpent - a.totalSpent || b.totalTransactions - a.totalTransactions || a.id.localeCompare(b.id))
    .slice(0, TOP_CUSTOMERS);
  return {
    totalCustomers: customers.length,
    newCustomers: customers.filter((c) => c.createdAt >= from).length,
    activeCustomers: customers.filter((c) => c.lastTransactionAt >= from).length,
    totalTransactions,
    totalSpent,
    averageSpent: customers.length ? Math.round((totalSpent / customers.length) * 100) / 100 : 0,
    period: { days: STATS_WINDOW_DAYS, from, to: now.toISOString() },
    topCustomers: top.map(customerView),
  };
}
