import { interruptedAttempt, outcomeEvent } from '../domain/order.js';
import { expireOrder, findExpired } from '../store/orders.js';
import { countOrderOutcome, type DeliveryDeps } from './deps.js';

const BATCH = 100;
const EXPIRED = 'the order expired before it was acked';

/**
 * Expires orders not pulled or not acked by `expires_at`: status EXPIRED and
 * `delivery.expired`, one compare-and-set write each. Driven by an indexed query on the
 * stored `expiresAt`, so orders that expired while the service was down expire at start.
 */
export async function expireDueOrders(
  deps: Pick<DeliveryDeps, 'orders' | 'outbox' | 'metrics'>,
  now = new Date(),
): Promise<number> {
  let expired = 0;
  for (const order of await findExpired(deps.orders, now, BATCH)) {
    const attempts = order.transport === 'pull' ? order.deliveryCount : order.attemptCount;
    const updated = await expireOrder(
      deps.outbox,
      deps.orders,
      order,
      EXPIRED,
      order.inFlight ? [interruptedAttempt(order.inFlight)] : [],
      outcomeEvent(order, 'EXPIRED', EXPIRED, attempts, now),
      now,
    );
    if (!updated) continue;
    expired += 1;
    countOrderOutcome(deps.metrics, 'EXPIRED');
  }
  return expired;
}
