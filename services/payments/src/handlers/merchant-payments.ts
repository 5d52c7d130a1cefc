import type { OperationHandler } from '@mmp/platform';
import {
  PaymentListQuery,
  PaymentRetrieveQuery,
  UserPaymentsQuery,
  appError,
  parseCreatePaymentBody,
  type PaymentExpand,
  type paymentsApi,
} from '@mmp/protocol';
import { toCreateResponse, toFullPayment, toListItem, type Payment } from '../domain/payment.js';
import { timelineView } from '../domain/timeline.js';
import {
  findPaymentById,
  findPaymentsOfUser,
  listPayments,
  type PaymentListFilter,
  type Scope,
} from '../store/payments.js';
import { refundsOfPayment } from '../store/transfers.js';
import type { Deps } from '../deps.js';
import { cancelByMerchant } from '../use-cases/cancel.js';
import { createMerchantPayment } from '../use-cases/create.js';
import { verifyPayment } from '../use-cases/verify.js';
import { parseQuery } from './input.js';
import { merchantPayment, onceByIdempotencyKey, scopeOf } from './merchant.js';
import { listBody } from './list-body.js';

type Api = typeof paymentsApi;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Adds the asked-for relations; the project from this service's own copy of projects. */
function createExpander(deps: Deps, expand: PaymentExpand[]) {
  return async <T extends object>(payment: Payment, view: T): Promise<T & Record<string, unknown>> => {
    const extra: Record<string, unknown> = {};
    if (expand.includes('customer')) {
      extra.customer =
        payment.customerId || payment.customer
          ? {
              id: payment.customerId,
              email: payment.customer?.email ?? null,
              phone: payment.customer?.phone ?? null,
              name: payment.customer?.name ?? null,
            }
          : null;
    }
    if (expand.includes('project')) {
      const project = await deps.projects.get(payment.projectId);
      extra.project = { id: payment.projectId, name: project.name };
    }
    if (expand.includes('refunds')) {
      extra.refunds = (await refundsOfPayment(deps.db, payment.id)).map((refund) => ({
        id: refund.id,
        amount: refund.amount,
        status: refund.status,
        createdAt: refund.createdAt,
      }));
    }
    if (expand.includes('events')) extra.events = timelineView(payment.timeline);
    return { ...view, ...extra };
  };
}

/** Query dates may be plain days; an end day includes the whole day. */
function toFilter(query: PaymentListQuery): PaymentListFilter {
  const start =
    query.startDate && (query.startDate.length === 10 ? `${query.startDate}T00:00:00.000Z` : query.startDate);
  const end =
    query.endDate && (query.endDate.length === 10 ? `${query.endDate}T23:59:59.999Z` : query.endDate);
  return {
    limit: query.limit,
    page: query.page,
    status: query.status,
    paymentMethod: query.paymentMethod,
    currency: query.currency,
    minAmount: query.minAmount,
    maxAmount: query.maxAmount,
    startDate: start ? new Date(start).toISOString() : undefined,
    endDate: end ? new Date(end).toISOString() : undefined,
    search: query.search,
  };
}

async function cursorPayment(
  deps: Deps,
  id: string | undefined,
  scope: Scope,
  name: string,
): Promise<Payment | undefined> {
  if (!id) return undefined;
  const payment = await findPaymentById(deps.db, id);
  if (!payment || payment.projectId !== scope.projectId || payment.livemode !== scope.livemode) {
    throw appError('invalid_request', `${name} does not name a payment of this project and environment.`, [
      { field: name, message: 'unknown payment id' },
    ]);
  }
  return payment;
}

/** The merchant payment API: input checked here, the work done by the use-cases. */
export function merchantPaymentHandlers(deps: Deps) {
  const create: OperationHandler<Api['create']> = async (request, { actor, requestId }) => {
    const parsed = parseCreatePaymentBody(request.body ?? {});
    if (!parsed.ok) throw parsed.error;
    const scope = scopeOf(actor);
    return onceByIdempotencyKey(deps, 'create', request, scope, request.body, async (key) => {
      const payment = await createMerchantPayment(deps, scope, parsed.value, key, requestId);
      return { status: 201, body: toCreateResponse(payment) };
    });
  };

  const retrieve: OperationHandler<Api['retrieve']> = async (request, { actor }) => {
    const { expand } = parseQuery(PaymentRetrieveQuery, request.query);
    const payment = await merchantPayment(deps, request.params.token, actor);
    return { status: 200, body: await createExpander(deps, expand)(payment, toFullPayment(payment)) };
  };

  const list: OperationHandler<Api['list']> = async (request, { actor }) => {
    const query = parseQuery(PaymentListQuery, request.query);
    const after = await cursorPayment(deps, query.starting_after, actor, 'starting_after');
    const before = await cursorPayment(deps, query.ending_before, actor, 'ending_before');
    const page = await listPayments(deps.db, actor, toFilter(query), { after, before });
    const expandOne = createExpander(deps, query.expand);
    const data = await Promise.all(page.items.map((payment) => expandOne(payment, toListItem(payment))));
    return { status: 200, body: listBody(data, page, query, { after, before }) };
  };

  const listByUser: OperationHandler<Api['listByUser']> = async (request, { actor }) => {
    const userId = request.params.userId ?? '';
    if (!UUID_PATTERN.test(userId)) {
      throw appError('invalid_request', 'userId must be a uuid.', [
        { field: 'userId', message: 'must be a uuid' },
      ]);
    }
    const { limit } = parseQuery(UserPaymentsQuery, request.query);
    const payments = await findPaymentsOfUser(deps.db, actor, userId.toLowerCase(), limit);
    return { status: 200, body: payments.map(toFullPayment) };
  };

  const verify: OperationHandler<Api['verify']> = async (request, { actor, requestId }) => {
    const payment = await merchantPayment(deps, request.params.token, actor);
    return { status: 200, body: toFullPayment(await verifyPayment(deps, payment, requestId)) };
  };

  const cancel: OperationHandler<Api['cancel']> = async (request, { actor, requestId }) => {
    const scope = scopeOf(actor);
    const token = request.params.token;
    const payload = { token, body: request.body ?? null };
    return onceByIdempotencyKey(deps, 'cancel', request, scope, payload, async ({ recovering }) => {
      const cancelled = await cancelByMerchant(
        deps,
        await merchantPayment(deps, token, scope),
        recovering,
        requestId,
      );
      return { status: 200, body: toFullPayment(cancelled) };
    });
  };

  return { create, retrieve, list, listByUser, verify, cancel };
}
