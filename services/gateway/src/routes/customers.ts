import { z } from 'zod';
import { CustomerListQuery, CustomerTransactionsQuery, customersApi } from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';

const projectParams = z.object({ projectId: z.string() });
const customerParams = projectParams.extend({
  customerId: z.string().describe("Our customer id, or your own externalId (the payments' customerId)"),
});
const reader = routeGroup({
  auth: 'merchant',
  projectParam: 'projectId',
  errorForm: 'envelope',
  tag: 'Customers',
});
const admin = routeGroup({ auth: 'admin', errorForm: 'envelope', tag: 'Admin' });
const customers = '/v1/projects/:projectId/customers';

/** Customer profiles, built from payments; read only, with a key of the same project. */
export const customersRoutes: ForwardedRoute[] = [
  reader('GET', customers, customersApi.list, { params: projectParams, query: CustomerListQuery }),
  reader('GET', `${customers}/stats`, customersApi.stats, { params: projectParams }),
  reader('GET', `${customers}/:customerId`, customersApi.retrieve, { params: customerParams }),
  reader('GET', `${customers}/:customerId/transactions`, customersApi.transactions, {
    params: customerParams,
    query: CustomerTransactionsQuery,
  }),
  admin('POST', '/v1/admin/customers/rebuild', customersApi.rebuild),
];
