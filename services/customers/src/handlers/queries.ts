import {
  appError,
  CustomerListQuery,
  CustomerTransactionsQuery,
  pageMeta,
  type CustomerSortField,
  type MerchantActor,
  type ServiceRequest,
  type customersApi,
} from '@mmp/protocol';
import type { Filter, OperationHandler, Sort } from '@mmp/platform';
import { parseQuery } from '../domain/queries.js';
import { customerStats, statsWindowStart } from '../domain/stats.js';
import { customerView, paymentListItem } from '../domain/views.js';
import type { CustomerStore, TransactionDoc } from '../store/customers.js';

type Scope = { projectId: string; livemode: boolean };

/**
 * The project and environment a request may see: the merchant key's own. A route project
 * that is not the key's answers 404, as if the customers did not exist (the gateway
 * checks it too; the service does not rely on that).
 */
export function scopeOf(request: ServiceRequest, actor: MerchantActor): Scope {
  if (request.params.projectId !== actor.projectId)
    throw appError('resource_not_found', 'Project not found.');
  return { projectId: actor.projectId, livemode: actor.livemode };
}

const SORT_KEYS: Record<CustomerSortField, string> = {
  lastTransactionAt: 'lastTransactionKey',
  createdAt: 'createdAt',
  totalSpent: 'totalSpent',
  totalTransactions: 'totalTransactions',
  name: 'nameKey',
};

export function createQueryHandlers(store: CustomerStore, now: () => Date = () => new Date()) {
  async function findOr404(scope: Scope, customerId: string | undefined) {
    const customer = customerId ? await store.findCustomer(scope, customerId) : null;
    if (!customer) throw appError('resource_not_found', `No customer '${customerId ?? ''}' in this project.`);
    return customer;
  }

  const list: OperationHandler<typeof customersApi.list> = async (request, { actor }) => {
    const scope = scopeOf(request, actor);
    const query = parseQuery(CustomerListQuery, request.query);
    const filter: Filter = { ...scope };
    if (query.search) {
      filter.$or = ['phone', 'email', 'name'].map((field) => ({ [field]: { $contains: query.search } }));
    }
    const direction = query.sort_order === 'asc' ? 1 : -1;
    // The id breaks ties, so pages never repeat or skip a customer.
    const sort: Sort = { [SORT_KEYS[query.sort_by]]: direction, _id: direction };
    const [customers, total] = await Promise.all([
      store.listCustomers(filter, sort, (query.page - 1) * query.per_page, query.per_page),
      store.countCustomers(filter),
    ]);
    return {
      status: 200,
      body: { data: customers.map(customerView), meta: pageMeta(query.page, query.per_page, total) },
    };
  };

  const stats: OperationHandler<typeof customersApi.stats> = async (request, { actor }) => {
    const scope = scopeOf(request, actor);
    return { status: 200, body: customerStats(await store.statsFigures(scope, statsWindowStart(now()))) };
  };

  const retrieve: OperationHandler<typeof customersApi.retrieve> = async (request, { actor }) => {
    const scope = scopeOf(request, actor);
    return { status: 200, body: customerView(await findOr404(scope, request.params.customerId)) };
  };

  const transactions: OperationHandler<typeof customersApi.transactions> = async (request, { actor }) => {
    const scope = scopeOf(request, actor);
    const query = parseQuery(CustomerTransactionsQuery, request.query);
    const customer = await findOr404(scope, request.params.customerId);
    const [records, total] = await Promise.all([
      store.pageTransactions(customer.id, (query.page - 1) * query.per_page, query.per_page),
      store.countTransactions(customer.id),
    ]);
    return {
      status: 200,
      body: {
        data: records.map((r: TransactionDoc) => paymentListItem(r.payment)),
        meta: pageMeta(query.page, query.per_page, total),
      },
    };
  };

  return { list, stats, retrieve, transactions };
}
