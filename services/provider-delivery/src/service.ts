import { z } from 'zod';
import { deliveryOperations, notices, pullApi, routerEvents } from '@mmp/protocol';
import { BaseEnv, operation, operations, type Resolve, type ServiceDefinition } from '@mmp/platform';
import { deliveriesHandler } from './handlers/deliveries.js';
import { orderCreatedHandler } from './handlers/order-created.js';
import { certificationAckHandler, pullHandlers } from './handlers/pull-api.js';
import { openOrders } from './store/orders.js';
import type { DeliveryDeps } from './use-cases/deps.js';
import { createOrderWaiters } from './use-cases/order-waiters.js';
import { expireDueOrders } from './use-cases/expire-orders.js';

export const Env = BaseEnv.extend({
  /** How long a provider has to answer one order delivery before it counts as TIMEOUT. */
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Wait before the 2nd attempt; doubled before each next one (plus up to 20 % jitter). */
  DELIVERY_BACKOFF_MS: z.coerce.number().int().positive().default(1_000),
  /** Attempts in all on timeout, 502, 503, 504 (specification: up to 3). */
  DELIVERY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** How often orders past expires_at are expired. */
  ORDER_EXPIRY_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
});
export type Env = typeof Env;

/**
 * provider-delivery: orders on rails, delivered by signed webhook or pulled by their
 * provider, acked, expired. `resolve` is for tests only: the names rail endpoints resolve
 * to, instead of the outside DNS.
 */
export function providerDelivery(options: { resolve?: Resolve } = {}): ServiceDefinition<Env> {
  return {
    name: 'provider-delivery',
    env: Env,
    async setup(kit) {
      const { env } = kit;
      const orders = await openOrders(kit.store);
      const http = kit.outboundHttp({ resolve: options.resolve });
      const waiters = createOrderWaiters(kit.stopping);
      kit.notices.hear(notices.ordersReady, waiters.wake);
      const deps: DeliveryDeps = {
        orders,
        outbox: kit.outbox([orders]),
        http,
        bus: kit.bus,
        log: kit.log,
        metrics: kit.metrics,
        waiters,
        ordersReady: (providerId) => kit.notices.tell(notices.ordersReady, providerId),
        config: {
          timeoutMs: env.DELIVERY_TIMEOUT_MS,
          maxAttempts: env.DELIVERY_MAX_ATTEMPTS,
          backoffMs: env.DELIVERY_BACKOFF_MS,
        },
      };
      kit.loop({
        name: 'order_expiry',
        intervalMs: env.ORDER_EXPIRY_INTERVAL_MS,
        pass: async () => {
          const count = await expireDueOrders(deps);
          if (count > 0) kit.log.info({ count }, 'orders expired');
        },
      });
      kit.consume({
        durable: 'provider-delivery',
        events: [routerEvents.orderCreated],
        handle: orderCreatedHandler(deps),
        // One handling is a credentials call and one POST: JetStream must not redeliver meanwhile.
        ackWaitMs: env.REQUEST_TIMEOUT_MS + env.DELIVERY_TIMEOUT_MS + 15_000,
        // Orders need no ordering, and a silent provider must not delay every other provider's orders.
        concurrency: 16,
      });
      kit.serve(
        ...operations(pullApi, pullHandlers(deps)),
        operation(deliveryOperations.deliveries, deliveriesHandler(orders)),
        operation(deliveryOperations.certificationAck, certificationAckHandler(deps)),
      );
    },
  };
}

export const providerDeliveryService = providerDelivery();
