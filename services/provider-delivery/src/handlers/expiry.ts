import { startLoop, type Logger, type Loop, type MetricsRegistry, type Outbox } from '@mmp/platform';
import { findExpired, type Orders } from '../store/orders.js';
import { outcomeEvent } from './outcome.js';
import { countOrderOutcome } from './webhook-delivery.js';

const BATCH = 100;

/**
 * Expires orders not pulled or not acked by `expires_at`: status EXPIRED and
 * `delivery.expired`, one compare-and-set write each. Driven by an indexed query on the
 * stored `expiresAt`, so orders that expired while the service was down expire at start.
 */
export async function expireDueOrders(
  orders: Orders,
  outbox: Outbox,
  now = new Date(),
  metrics?: MetricsRegistry,
): Promise<number> {
  let expired = 0;
  for (const order of await findExpired(orders, now, BATCH)) {
    const updated = await outbox.update(
      orders,
      { _id: order._id, status: order.status },
      {
        $set: {
          status: 'EXPIRED',
          outcome: 'EXPIRED',
          reason: 'the order expired before it was acked',
          updatedAt: now,
        },
      },
      [
        outcomeEvent(
          order,
          'EXPIRED',
          'the order expired before it was acked',
          order.transport === 'pull' ? order.deliveryCount : order.attemptCount,
        ),
      ],
    );
    if (!updated) continue;
    expired += 1;
    if (metrics) countOrderOutcome(metrics, 'EXPIRED');
  }
  return expired;
}

export function startExpiryLoop(options: {
  orders: Orders;
  outbox: Outbox;
  intervalMs: number;
  log: Logger;
  metrics: MetricsRegistry;
}): Loop {
  return startLoop({
    name: 'order_expiry',
    intervalMs: options.intervalMs,
    log: options.log,
    metrics: options.metrics,
    pass: async () => {
      const count = await expireDueOrders(options.orders, options.outbox, new Date(), options.metrics);
      if (count > 0) options.log.info({ count }, 'orders expired');
    },
  });
}
