import { z } from 'zod';
import { httpOperationsOf } from '../bus/contract.js';
import { CustomerList, CustomerProfile, CustomerStats, CustomerTransactions } from '../merchant/customer.js';

const reader = httpOperationsOf({ service: 'customers', actors: ['merchant'], scope: 'customers:read' });
const admin = httpOperationsOf({ service: 'customers', actors: ['admin'] });

/** Customer profiles, projected from payment events; read only, with a key of the same project. */
export const customersApi = {
  list: reader({
    name: 'list',
    responses: { 200: CustomerList },
    errors: ['invalid_request', 'resource_not_found'],
    summary: 'List customers; search matches phone, e-mail or name (case-insensitive, partial)',
  }),
  stats: reader({
    name: 'stats',
    responses: { 200: CustomerStats },
    errors: ['resource_not_found'],
    summary:
      'Customer statistics: totals, new and active customers in the last 30 days, average spend, top customers',
  }),
  retrieve: reader({
    name: 'retrieve',
    responses: { 200: CustomerProfile },
    errors: ['resource_not_found'],
    summary: 'Retrieve a customer by id or externalId',
  }),
  transactions: reader({
    name: 'transactions',
    responses: { 200: CustomerTransactions },
    errors: ['invalid_request', 'resource_not_found'],
    summary: "A customer's payments in every status, newest first",
  }),
  rebuild: admin({
    name: 'rebuild',
    responses: {
      200: z.object({
        events: z.number().int(),
        customers: z.number().int(),
        transactions: z.number().int(),
        durationMs: z.number().int(),
      }),
    },
    errors: ['invalid_state'],
    summary: 'Rebuild the customer profiles from the payment events kept in the stream',
  }),
};
