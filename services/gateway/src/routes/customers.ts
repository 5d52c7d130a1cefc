import { z } from 'zod';
import {
  CustomerList,
  CustomerListQuery,
  CustomerProfile,
  CustomerStats,
  CustomerTransactions,
  CustomerTransactionsQuery,
} from '@mmp/protocol';
import type { ForwardedRoute } from './route.js';

const projectParams = z.object({ projectId: z.string() });
const customerParams = projectParams.extend({
  customerId: z.string().describe("Our customer id, or your own externalId (the payments' customerId)"),
});

const merchant = {
  service: 'customers',
  auth: 'merchant',
  scope: 'customers:read',
  projectParam: 'projectId',
  errorForm: 'envelope',
  tag: 'Customers',
} as const;

/** Customer profiles, built from payments; read only, with a key of the same project. */
export const customersRoutes: ForwardedRoute[] = [
  {
    ...merchant,
    method: 'GET',
    url: '/v1/projects/:projectId/customers',
    operation: 'list',
    summary: 'List customers; search matches phone, e-mail or name (case-insensitive, partial)',
    schema: { params: projectParams, query: CustomerListQuery, responses: { 200: CustomerList } },
  },
  {
    ...merchant,
    method: 'GET',
    url: '/v1/projects/:projectId/customers/stats',
    operation: 'stats',
    summary:
      'Customer statistics: totals, new and active customers in the last 30 days, average spend, top customers',
    schema: { params: projectParams, responses: { 200: CustomerStats } },
  },
  {
    ...merchant,
    method: 'GET',
    url: '/v1/projects/:projectId/customers/:customerId',
    operation: 'retrieve',
    summary: 'Retrieve a customer by id or externalId',
    schema: { params: customerParams, responses: { 200: CustomerProfile } },
  },
  {
    ...merchant,
    method: 'GET',
    url: '/v1/projects/:projectId/customers/:customerId/transactions',
    operation: 'transactions',
    summary: "A customer's payments in every status, newest first",
    schema: {
      params: customerParams,
      query: CustomerTransactionsQuery,
      responses: { 200: CustomerTransactions },
    },
  },
  {
    method: 'POST',
    url: '/v1/admin/customers/rebuild',
    service: 'customers',
    operation: 'rebuild',
    auth: 'admin',
    errorForm: 'envelope',
    summary: 'Rebuild the customer profiles from the payment events kept in the stream',
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
