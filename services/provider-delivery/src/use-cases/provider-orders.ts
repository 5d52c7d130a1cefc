import { appError, type OrderAck } from '@mmp/protocol';
import { expectedAckType, outcomeEvent, sameAck, type Order } from '../domain/order.js';
import { findOrder, findProviderOrder, markFetched, findPullable, recordAck } from '../store/orders.js';
import { countOrderOutcome, type DeliveryDeps } from './deps.js';

type PullDeps = Pick<DeliveryDeps, 'orders' | 'outbox' | 'metrics'>;

/** One of the provider's pull orders, by key; another provider's is not found. */
export async function pullOrderOf(
  deps: PullDeps,
  providerId: string,
  key: string | undefined,
): Promise<Order> {
  const order = key ? await findProviderOrder(deps.orders, providerId, key) : null;
  if (!order) throw appError('resource_not_found', 'No order of your pull rails with this idempotency_key.');
  return order;
}

/**
 * Pending and delivered-but-unacked orders of the provider's pull rails. Each fetch counts
 * as a delivery; an order stays re-deliverable until acked.
 */
export async function fetchOrders(deps: PullDeps, providerId: string, limit: number): Promise<Order[]> {
  const now = new Date();
  const fetched: Order[] = [];
  for (const candidate of await findPullable(deps.orders, providerId, now, limit)) {
    const updated = await markFetched(deps.orders, candidate._id, now);
    if (updated) fetched.push(updated);
  }
  return fetched;
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

/**
 * A provider's ack of one of its pull orders (the exact payment.ack or payout.ack): the
 * first ack decides; the same ack again answers the same, a different one is a conflict.
 */
export async function ackOrder(
  deps: PullDeps,
  providerId: string,
  key: string,
  ack: OrderAck,
): Promise<OrderAck> {
  if (ack.idempotency_key !== key) {
    throw appError('validation_error', 'idempotency_key must echo the order key of the path.', [
      { field: 'idempotency_key', message: 'must equal the idempotency key of the path' },
    ]);
  }
  const order = await pullOrderOf(deps, providerId, key);
  if (ack.type !== expectedAckType(order)) {
    throw appError('validation_error', `This order takes a ${expectedAckType(order)}.`, [
      { field: 'type', message: `must be ${expectedAckType(order)}` },
    ]);
  }
  const settled = settledAnswer(order, ack);
  if (settled) return settled;
  const outcome = ack.status === 'ACCEPTED' ? 'ACCEPTED' : 'REJECTED';
  const reason = ack.status === 'REJECTED' ? (ack.reason ?? 'rejected by the provider') : null;
  const event = outcomeEvent(order, outcome, reason, order.deliveryCount, new Date());
  if (await recordAck(deps.outbox, deps.orders, order, ack, { outcome, reason }, event)) {
    countOrderOutcome(deps.metrics, outcome);
    return ack;
  }
  // Lost a race with another ack or with expiry: answer from what won.
  const current = await findOrder(deps.orders, order._id);
  return (current && settledAnswer(current, ack)) ?? ack;
}
