import { z } from 'zod';
import { Uuid } from '../ids.js';
import { DateTime, queryInt } from './common.js';
import { PaymentListItem } from './payment.js';
import { oneOf } from '../one-of.js';

/** Optional fields are absent, not null, when unknown (the specification marks them optional). */
export const CustomerProfile = z.strictObject({
  id: Uuid,
  projectId: Uuid,
  externalId: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  name: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()),
  totalTransactions: z.number().int().nonnegative(),
  totalSpent: z.number().nonnegative(),
  /** Null until the profile's first completed transaction. */
  lastTransactionAt: DateTime.nullable(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type CustomerProfile = z.infer<typeof CustomerProfile>;

export const CUSTOMER_SORT_FIELDS = [
  'lastTransactionAt',
  'createdAt',
  'totalSpent',
  'totalTransactions',
  'name',
] as const;
export const CustomerSortField = oneOf(CUSTOMER_SORT_FIELDS, 'sort_by');
export type CustomerSortField = z.infer<typeof CustomerSortField>;

export const SortOrder = z.enum(['asc', 'desc'], { error: 'sort_order must be asc or desc' });
export type SortOrder = z.infer<typeof SortOrder>;

export const CustomerListQuery = z.strictObject({
  search: z.string().trim().min(1).max(100).optional(),
  page: queryInt('page', 1).default(1),
  per_page: queryInt('per_page', 1, 100).default(20),
  sort_by: CustomerSortField.default('lastTransactionAt'),
  sort_order: SortOrder.default('desc'),
});
export type CustomerListQuery = z.output<typeof CustomerListQuery>;

export const CustomerTransactionsQuery = z.strictObject({
  page: queryInt('page', 1).default(1),
  per_page: queryInt('per_page', 1, 100).default(20),
});
export type CustomerTransactionsQuery = z.output<typeof CustomerTransactionsQuery>;

export const PageMeta = z.strictObject({
  page: z.number().int().positive(),
  per_page: z.number().int().positive(),
  total: z.number().int().nonnegative(),
  total_pages: z.number().int().nonnegative(),
});
export type PageMeta = z.infer<typeof PageMeta>;

export const CustomerList = z.strictObject({ data: z.array(CustomerProfile), meta: PageMeta });
export type CustomerList = z.infer<typeof CustomerList>;

export const CustomerTransactions = z.strictObject({ data: z.array(PaymentListItem), meta: PageMeta });
export type CustomerTransactions = z.infer<typeof CustomerTransactions>;

export const CustomerStats = z.strictObject({
  totalCustomers: z.number().int().nonnegative(),
  newCustomersLast30Days: z.number().int().nonnegative(),
  activeCustomersLast30Days: z.number().int().nonnegative(),
  totalSpent: z.number().nonnegative(),
  averageSpent: z.number().nonnegative(),
  topCustomers: z.array(CustomerProfile),
});
export type CustomerStats = z.infer<typeof CustomerStats>;

export function pageMeta(page: number, perPage: number, total: number): PageMeta {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}
