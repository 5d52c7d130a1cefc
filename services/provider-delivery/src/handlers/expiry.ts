import { startLoop, type Logger, type Loop, type MetricsRegistry, type Outbox } from '@mmp/platform';
import { interruptedAttempt } from '../domain/order.js';
import { findExpired, type Orders } from '../store/orders.js';
import { countOrderOutcome, outcomeEvent } from './outcome.js';

const BATCH = 100;

/**
 * Expires orders not pulled or not acked by `expires_at`: status EXPIRED and
 * `delivery.expired`, one compare-and-set write each. A webhook POST still out then is
 * recorded as interrupted, so the expired order shows no attempt in flight forever. Driven by an indexed query on the
 * stored `expiresAt`, so orders that expired while the service was down expire at start.
 */
export async function expireDueOrders(
  orders: Orders,
  outbox: Outbox,
  metrics: MetricsRegistry,
  now = new Date(),
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
          inFlight: null,
        },
        ...(order.inFlight ? { $push: { attempts: { $each: [interruptedAttempt(order.inFlight)] } } } : {}),
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
    countOrderOutcome(metrics, 'EXPIRED');
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
      const count = await expireDueOrders(options.orders, options.outbox, options.metrics);
      if (count > 0) options.log.info({ count }, 'orders expired');
    },
  });
}
