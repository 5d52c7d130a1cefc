import { z } from 'zod';
import type { ForwardedRoute } from './route.js';

const SORT_FIELDS = ['lastTransactionAt', 'createdAt', 'totalSpent', 'totalTransactions', 'name'] as const;

const Customer = z.object({
  id: z.uuid(),
  projectId: z.string(),
  livemode: z.boolean(),
  externalId: z.string().describe("The merchant's own customer identifier (the payment's customerId)"),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  name: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  totalTransactions: z.number().int().describe('Payments of the customer, in any status'),
  totalSpent: z.number().describe('Completed payments net of refunds, in whole francs'),
  lastTransactionAt: z.string().describe('Creation time of the latest payment'),
  createdAt: z.string().describe('Creation time of the first payment'),
  updatedAt: z.string(),
});

const PageMeta = z.object({
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  total_pages: z.number().int(),
});

const PaymentListItem = z.object({
  id: z.string(),
  token: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  status: z.string(),
  paymentMethod: z.string(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});

const Stats = z.object({
  totalCustomers: z.number().int(),
  newCustomers: z.number().int().describe('First payment in the last 30 days'),
  activeCustomers: z.number().int().describe('Latest payment in the last 30 days'),
  totalTransactions: z.number().int(),
  totalSpent: z.number(),
  averageSpent: z.number().describe('totalSpent per customer'),
  period: z.object({ days: z.number().int(), from: z.string(), to: z.string() }),
  topCustomers: z.array(Customer).describe('Up to 5, by totalSpent'),
});

const projectParams = z.object({ projectId: z.string() });
const customerParams = projectParams.extend({
  customerId: z.string().describe('Our customer id, or your externalId'),
});
const paging = {
  page: z.coerce.number().int().min(1).optional().describe('Default 1'),
  per_page: z.coerce.number().int().min(1).max(100).optional().describe('1 to 100, default 20'),
};

const merchant = {
  service: 'customers',
  auth: 'merchant',
  scope: 'customers:read',
  projectParam: 'projectId',
  errorForm: 'envelope',
  tag: 'Customers',
} as const;

/** Customer profiles, built from payments; read only, with a secret key of the same project. */
export const customersRoutes: ForwardedRoute[] = [
  {
    ...merchant,
    method: 'GET',
    url: '/v1/projects/:projectId/customers',
    operation: 'list',
    summary: 'List customers, searchable by phone, e-mail or name',
    schema: {
      params: projectParams,
      query: z.object({
        search: z.string().optional().describe('Case-insensitive partial match on phone, e-mail or name'),
        ...paging,
        sort_by: z.enum(SORT_FIELDS).optional().describe('Default lastTransactionAt'),
        sort_order: z.enum(['asc', 'desc']).optional().describe('Default desc'),
      }),
      responses: { 200: z.object({ data: z.array(Customer), meta: PageMeta }) },
    },
  },
  {
    ...merchant,
    method: 'GET',
    url: '/v1/projects/:projectId/customers/stats',
    operation: 'stats',
    summary: 'Customer statistics: totals, new and active customers in the last 30 days, average spend, top customers',
    schema: { params: projectParams, responses: { 200: Stats } },
  },
  {
    ...merchant,
    method: 'GET',
    url: '/v1/projects/:projectId/customers/:customerId',
    operation: 'retrieve',
    summary: 'Retrieve a customer by id or externalId',
    schema: { params: customerParams, responses: { 200: Customer } },
  },
  {
    ...merchant,
    method: 'GET',
    url: '/v1/projects/:projectId/customers/:customerId/transactions',
    operation: 'transactions',
    summary: "A customer's payments, newest first",
    schema: {
      params: customerParams,
      query: z.object(paging),
      responses: { 200: z.object({ data: z.array(PaymentListItem), meta: PageMeta }) },
    },
  },
  {
    method: 'POST',
    url: '/v1/admin/customers/rebuild',
    service: 'customers',
    operation: 'rebuild',
    auth: 'admin',
    errorForm: 'envelope',
    summary: 'Rebuild the customer profiles from the payment events of the stream',
    tag: 'Admin',
    schema: {
      responses: {
        200: z.object({
          events: z.number().int(),
          customers: z.number().int(),
          transactions: z.number().int(),
          durationMs: z.number().int(),
        }),
      },
    },
  },
];
