import type { CustomerStats } from '@mmp/protocol';
import { customerView, type Customer } from './views.js';

export const STATS_WINDOW_DAYS = 30;
export const TOP_CUSTOMERS = 5;

/** Where the window of "new" and "active" customers starts, `STATS_WINDOW_DAYS` before `now`. */
export function statsWindowStart(now: Date): string {
  return new Date(now.getTime() - STATS_WINDOW_DAYS * 24 * 3600 * 1000).toISOString();
}

/**
 * What the statistics of one project and environment are made of: new customers had their
 * first payment since the window's start, active ones a completed payment; the top ones are
 * the TOP_CUSTOMERS who spent most (ties: more payments, then id), none who spent nothing.
 */
export type StatsFigures = {
  totalCustomers: number;
  newCustomers: number;
  activeCustomers: number;
  totalSpent: number;
  top: Customer[];
};

/** The statistics of a project and environment; the average is spend per customer, to the centime. */
export function customerStats(figures: StatsFigures): CustomerStats {
  const { totalCustomers, totalSpent } = figures;
  return {
    totalCustomers,
    newCustomersLast30Days: figures.newCustomers,
    activeCustomersLast30Days: figures.activeCustomers,
    totalSpent,
    averageSpent: totalCustomers ? Math.round((totalSpent / totalCustomers) * 100) / 100 : 0,
    topCustomers: figures.top.map(customerView),
  };
}
