import type { z } from 'zod';
import type { Operation } from '@mmp/platform';
import {
  PaymentListQuery,
  PaymentRetrieveQuery,
  UserPaymentsQuery,
  appError,
  fieldErrors,
  type PaymentExpand,
  requireActor,
} from '@mmp/protocol';
import { toFullPayment, toListItem, toSnapshot, type Payment } from '../domain/payment.js';
import { timelineView } from '../domain/timeline.js';
import {
  findPaymentById,
  findPaymentByToken,
  findPaymentOfSession,
  findPaymentsOfUser,
  listPayments,
  type PaymentListFilter,
  type Scope,
} from '../store/payments.js';
import { type Deps } from './deps.js';

/** Bad query parameters are the client's mistake: 400 naming each of them. */
function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  const fields = fieldErrors(result.error);
  const detail = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
  throw appError('invalid_request', `Invalid query parameters (${detail}).`, fields);
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const paymentNotFound = () => appError('resource_not_found', 'No such payment.');

export async function merchantPayment(deps: Deps, token: string | undefined, scope: Scope): Promise<Payment> {
  const payment = token ? await findPaymentByToken(deps.db, token, scope) : null;
  if (!payment) throw paymentNotFound();
  return payment;
}

type Project = { id: string; name: string };

/** Adds the asked-for relations; the project is read once per request from the gateway. */
function createExpander(deps: Deps, expand: PaymentExpand[], requestId: string) {
  let project: Promise<Project> | undefined;
  const loadProject = (projectId: string) => {
    project ??= deps.services
      .command<Project & Record<string, unknown>>('gateway', 'projects.get', { projectId }, { requestId })
      .then((found) => ({ id: found.id, name: found.name }));
    return project;
  };
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
    if (expand.includes('project')) extra.project = await loadProject(payment.projectId);
    // Refunds are not issued through this API yet: the relation exists and is empty.
    if (expand.includes('refunds')) extra.refunds = [];
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

export function readOperations(deps: Deps): Record<string, Operation> {
  return {
    async retrieve(request, { actor, requestId }) {
      const merchant = requireActor(actor, ['merchant']);
      const { expand } = parseQuery(PaymentRetrieveQuery, request.query);
      const payment = await merchantPayment(deps, request.params.token, merchant);
      const expandOne = createExpander(deps, expand, requestId);
      return { status: 200, body: await expandOne(payment, toFullPayment(payment)) };
    },

    async list(request, { actor, requestId }) {
      const merchant = requireActor(actor, ['merchant']);
      const query = parseQuery(PaymentListQuery, request.query);
      const after = await cursorPayment(deps, query.starting_after, merchant, 'starting_after');
      const before = await cursorPayment(deps, query.ending_before, merchant, 'ending_before');
      const page = await listPayments(deps.db, merchant, toFilter(query), { after, before });
      const expandOne = createExpander(deps, query.expand, requestId);
      const data = await Promise.all(page.items.map((payment) => expandOne(payment, toListItem(payment))));
      const pageMode = !after && !before;
      return {
        status: 200,
        body: {
          data,
          has_more: page.hasMore,
          meta: { limit: query.limit, total: page.total, ...(pageMode ? { page: query.page } : {}) },
        },
      };
    },

    async 'list-by-user'(request, { actor }) {
      const merchant = requireActor(actor, ['merchant']);
      const userId = request.params.userId ?? '';
      if (!UUID_PATTERN.test(userId)) {
        throw appError('invalid_request', 'userId must be a uuid.', [
          { field: 'userId', message: 'must be a uuid' },
        ]);
      }
      const { limit } = parseQuery(UserPaymentsQuery, request.query);
      const payments = await findPaymentsOfUser(deps.db, merchant, userId.toLowerCase(), limit);
      return { status: 200, body: payments.map(toFullPayment) };
    },

    /**
     * By token, id or checkout session. links-checkout asks by session when a pay attempt's
     * outcome was lost (it may not know the token): not found means no payment exists.
     */
    async 'retrieve-internal'(request, { actor }) {
      requireActor(actor, ['service']);
      const body = (request.body ?? {}) as { token?: unknown; id?: unknown; checkoutSessionId?: unknown };
      const payment =
        typeof body.token === 'string'
          ? await findPaymentByToken(deps.db, body.token)
          : typeof body.id === 'string'
            ? await findPaymentById(deps.db, body.id)
            : typeof body.checkoutSessionId === 'string'
              ? await findPaymentOfSession(deps.db, body.checkoutSessionId)
              : null;
      if (!payment) throw paymentNotFound();
      return {
        status: 200,
        body: { ...toSnapshot(payment), paymentUrl: payment.paymentUrl, expiresAt: payment.expiresAt },
      };
    },
  };
}
