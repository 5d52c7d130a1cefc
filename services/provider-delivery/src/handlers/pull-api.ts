import type { OperationHandler } from '@mmp/platform';
import {
  OrderAck,
  PullOrdersQuery,
  appError,
  fieldErrors,
  isAppError,
  isCertificationPaymentId,
  parseOrThrow,
  validationMessage,
  type deliveryOperations,
  type pullApi,
  type ServiceRequest,
} from '@mmp/protocol';
import { toOrderEntry } from '../domain/order.js';
import type { DeliveryDeps } from '../use-cases/deps.js';
import { ackOrder, fetchOrders, pullOrderOf } from '../use-cases/provider-orders.js';

type Pull = typeof pullApi;

/**
 * Certification of a pull rail (cases 9 and 10): an ack the adapter did not send, judged by
 * the same rules as the route's, answered as the provider would see it. Certification
 * orders only: no other order can be acked this way.
 */
export function certificationAckHandler(
  deps: DeliveryDeps,
): OperationHandler<typeof deliveryOperations.certificationAck> {
  return async ({ providerId, orderKey, ack }) => {
    const order = await pullOrderOf(deps, providerId, orderKey);
    if (!isCertificationPaymentId(order.paymentId))
      throw appError('resource_not_found', 'No certification order with this idempotency_key.');
    try {
      return { status: 200, body: await ackOrder(deps, providerId, orderKey, ack) };
    } catch (error) {
      if (!isAppError(error)) throw error;
      return { status: error.status, body: { error: error.toBody() } };
    }
  };
}

/** `status=pending` (the default), `limit` 1 to 100 (50), `wait_ms` 0 to 20,000 (0); anything else is a 400. */
export function parsePullQuery(query: ServiceRequest['query']): { limit: number; waitMs: number } {
  const result = PullOrdersQuery.safeParse(query);
  if (result.success) return { limit: result.data.limit, waitMs: result.data.wait_ms };
  const fields = fieldErrors(result.error);
  throw appError('invalid_request', validationMessage(fields), fields);
}

/**
 * A long poll looks again at least this often: a notice lost between replicas, or an order
 * that became fetchable without one, is then found within this time.
 */
const LOOK_AGAIN_MS = 1_000;

/** The provider's orders now, or, when there are none, as soon as one comes within `waitMs`. */
async function fetchWaiting(deps: DeliveryDeps, providerId: string, limit: number, waitMs: number) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const mark = deps.waiters.mark(providerId);
    const orders = await fetchOrders(deps, providerId, limit);
    const left = deadline - Date.now();
    if (orders.length > 0 || left <= 0 || deps.waiters.stopping) return orders;
    await deps.waiters.wait(providerId, Math.min(left, LOOK_AGAIN_MS), mark);
  }
}

/** The pull transport's routes (a provider's key): fetch, read one, ack. */
export function pullHandlers(deps: DeliveryDeps): { [K in keyof Pull]: OperationHandler<Pull[K]> } {
  return {
    pull: async (request, { actor }) => {
      const { limit, waitMs } = parsePullQuery(request.query);
      const orders = await fetchWaiting(deps, actor.providerId, limit, waitMs);
      return { status: 200, body: { orders: orders.map((order) => toOrderEntry(order)) } };
    },
    get: async (request, { actor }) => {
      const order = await pullOrderOf(deps, actor.providerId, request.params.idempotencyKey);
      return { status: 200, body: toOrderEntry(order, true) };
    },
    ack: async (request, { actor }) => {
      const key = request.params.idempotencyKey ?? '';
      const ack = parseOrThrow(OrderAck, request.body);
      return { status: 200, body: await ackOrder(deps, actor.providerId, key, ack) };
    },
  };
}
