import type { Logger, Outbox } from '@mmp/platform';
import { findExpired, type Orders } from '../store/orders.js';
import { outcomeEvent } from './outcome.js';

const BATCH = 100;

/**
 * Expires orders not pulled or not acked by `expires_at`: status EXPIRED and
 * `delivery.expired`, one compare-and-set write each. Driven by an indexed query on the
 * stored `expiresAt`, so orders that expired while the service was down expire at start.
 */
export async function expireDueOrders(orders: Orders, outbox: Outbox, now = new Date()): Promise<number> {
  let expired = 0;
  for (const order of await findExpired(orders, now, BATCH)) {
    const updated = await outbox.update(
      orders,
      { _id: order._id, status: order.status },
      { $set: { status: 'EXPIRED', outcome: 'EXPIRED', reason: 'the order expired before it was acked', updatedAt: now } },
      [outcomeEvent(order, 'EXPIRED', 'the order expired before it was acked', order.transport === 'pull' ? order.deliveryCount : order.attemptCount)],
    );
    if (updated) expired += 1;
  }
  return expired;
}

export function startExpiryLoop(options: { orders: Orders; outbox: Outbox; intervalMs: number; log: Logger }) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = expireDueOrders(options.orders, options.outbox)
      .then((count) => {
        if (count > 0) options.log.info({ count }, 'orders expired');
      })
      .catch((error) => options.log.warn({ err: error }, 'order expiry pass failed'))
      .finally(() => {
        if (timer) timer = setTimeout(tick, options.intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
