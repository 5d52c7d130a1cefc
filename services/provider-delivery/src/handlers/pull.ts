import {
  OrderAck,
  PullOrdersQuery,
  appError,
  fieldErrors,
  parseOrThrow,
  validationMessage,
  type ServiceRequest,
} from '@mmp/protocol';
import type { MetricsRegistry, Operation, Outbox, RequestContext } from '@mmp/platform';
import { expectedAckType, sameAck, toOrderEntry, type Order } from '../domain/order.js';
import { findProviderOrder, findPullable, type Orders } from '../store/orders.js';
import { countOrderOutcome, outcomeEvent } from './outcome.js';

export type PullDeps = { orders: Orders; outbox: Outbox; metrics: MetricsRegistry };

function providerOf(context: RequestContext): string {
  if (context.actor.kind !== 'provider')
    throw appError('insufficient_permissions', 'Only a provider can use the pull transport.');
  return context.actor.providerId;
}

/** `status=pending` (the default) and `limit` 1 to 100, default 50; anything else is a 400. */
export function parsePullQuery(query: ServiceRequest['query']): number {
  const result = PullOrdersQuery.safeParse(query);
  if (result.success) return result.data.limit;
  const fields = fieldErrors(result.error);
  throw appError('invalid_request', validationMessage(fields), fields);
}

async function orderOf(deps: PullDeps, providerId: string, key: string | undefined): Promise<Order> {
  const order = key ? await findProviderOrder(deps.orders, providerId, key) : null;
  if (!order) throw appError('resource_not_found', 'No order of your pull rails with this idempotency_key.');
  return order;
}

/**
 * GET /provider/orders: pending and delivered-but-unacked orders of the provider's pull
 * rails. Each fetch counts as a delivery; an order stays re-deliverable until acked.
 */
export function pullOrders(deps: PullDeps): Operation {
  return async (request, context) => {
    const providerId = providerOf(context);
    const limit = parsePullQuery(request.query);
    const candidates = await findPullable(deps.orders, providerId, new Date(), limit);
    const delivered: Order[] = [];
    for (const candidate of candidates) {
      const updated = await deps.orders.findOneAndUpdate(
        { _id: candidate._id, status: { $in: ['PENDING', 'DELIVERED'] } },
        { $set: { status: 'DELIVERED', updatedAt: new Date() }, $inc: { deliveryCount: 1 } },
      );
      if (updated) delivered.push(updated);
    }
    return { status: 200, body: { orders: delivered.map((order) => toOrderEntry(order)) } };
  };
}

/** GET /provider/orders/{key}: the entry, its status and the stored ack. */
export function getOrder(deps: PullDeps): Operation {
  return async (request, context) => {
    const order = await orderOf(deps, providerOf(context), request.params.idempotencyKey);
    return { status: 200, body: toOrderEntry(order, true) };
  };
}

/**
 * POST /provider/orders/{key}/ack with the exact payment.ack or payout.ack. The first ack
 * decides; the same ack again answers the same, a different one is a conflict.
 */
export function ackOrder(deps: PullDeps): Operation {
  return async (request, context) => {
    const providerId = providerOf(context);
    const key = request.params.idempotencyKey;
    const ack = parseOrThrow(OrderAck, request.body);
    if (ack.idempotency_key !== key) {
      throw appError('validation_error', 'idempotency_key must echo the order key of the path.', [
        { field: 'idempotency_key', message: 'must equal the idempotency key of the path' },
      ]);
    }
    const order = await orderOf(deps, providerId, key);
    if (ack.type !== expectedAckType(order)) {
      throw appError('validation_error', `This order takes a ${expectedAckType(order)}.`, [
        { field: 'type', message: `must be ${expectedAckType(order)}` },
      ]);
    }
    return { status: 200, body: await applyAck(deps, order, ack) };
  };
}

async function applyAck(deps: PullDeps, order: Order, ack: OrderAck): Promise<OrderAck> {
  const settled = settledAnswer(order, ack);
  if (settled) return settled;
  const classification = ack.status === 'ACCEPTED' ? 'ACCEPTED' : 'REJECTED';
  const reason = ack.status === 'REJECTED' ? (ack.reason ?? 'rejected by the provider') : null;
  const updated = await deps.outbox.update(
    deps.orders,
    { _id: order._id, status: { $in: ['PENDING', 'DELIVERED'] } },
    { $set: { status: 'ACKED', ack, outcome: classification, reason, updatedAt: new Date() } },
    [outcomeEvent(order, classification, reason, order.deliveryCount)],
  );
  if (updated) {
    countOrderOutcome(deps.metrics, classification);
    return ack;
  }
  // Lost a race with another ack or with expiry: answer from what won.
  const current = await deps.orders.findOne({ _id: order._id });
  return (current && settledAnswer(current, ack)) ?? ack;
}

/** The answer for an order that is no longer open, or null while it is. */
function settledAnswer(order: Order, ack: OrderAck): OrderAck | null {
  const open = order.status === 'PENDING' || order.status === 'DELIVERED';
  // Past expires_at it is expired even if the expiry loop has not marked it yet.
  if (order.status === 'EXPIRED' || (open && order.expiresAt.getTime() <= Date.now()))
    throw appError('order_expired', 'The order expired before it was acked.');
  if (order.status === 'ACKED' && order.ack) {
    if (sameAck(order.ack, ack)) return order.ack;
    throw appError('invalid_state', 'The order was already acked with a different ack.');
  }
  if (order.status === 'FAILED' || order.status === 'ACKED')
    throw appError('invalid_state', 'The order can no longer be acked.');
  return null;
}
