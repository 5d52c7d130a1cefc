import {
  BaseEnv,
  consumeEvents,
  createOutbox,
  type Collection,
  type Doc,
  type ServiceDefinition,
} from '@mmp/platform';
import { z } from 'zod';
import { ProviderEndpointEnv } from '@mmp/protocol';
import { getDeliveries } from './handlers/deliveries.js';
import { startExpiryLoop } from './handlers/expiry.js';
import { receiveOrder } from './handlers/order-created.js';
import { probeRail } from './handlers/probe.js';
import { ackOrder, getOrder, pullOrders } from './handlers/pull.js';
import { openOrders } from './store/orders.js';
import { createProviderHttp } from './transport/signed-post.js';

export const Env = BaseEnv.extend(ProviderEndpointEnv.shape).extend({
  /** How long a provider has to answer one order delivery before it counts as TIMEOUT. */
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Wait before the 2nd attempt; doubled before each next one (plus up to 20 % jitter). */
  DELIVERY_BACKOFF_MS: z.coerce.number().int().positive().default(1_000),
  /** Attempts in all on timeout, 502, 503, 504 (specification: up to 3). */
  DELIVERY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** Health probe timeout of a rail test (specification: about 5 s). */
  PROBE_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** How often orders past expires_at are expired. */
  ORDER_EXPIRY_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
});
export type Env = typeof Env;

export const providerDeliveryService: ServiceDefinition<Env> = {
  name: 'provider-delivery',
  env: Env,
  async start({ env, log, nc, naming, store, publish, services, metrics }) {
    const orders = await openOrders(store);
    const outbox = createOutbox({ publish, log, metrics, collections: [orders as Collection<Doc>] });
    const http = createProviderHttp();
    const webhook = {
      orders,
      outbox,
      http,
      services,
      log,
      metrics,
      config: {
        timeoutMs: env.DELIVERY_TIMEOUT_MS,
        maxAttempts: env.DELIVERY_MAX_ATTEMPTS,
        backoffMs: env.DELIVERY_BACKOFF_MS,
        allowHttpLoopback: env.ALLOW_HTTP_LOOPBACK_ENDPOINTS,
      },
    };
    outbox.start();
    const expiry = startExpiryLoop({
      orders,
      outbox,
      intervalMs: env.ORDER_EXPIRY_INTERVAL_MS,
      log,
      metrics,
    });
    const consumer = await consumeEvents({
      nc,
      naming,
      durable: 'provider-delivery',
      types: ['order.created'],
      log,
      handle: (event) => receiveOrder(webhook, event),
      // An attempt may take the whole delivery timeout; JetStream must not redeliver meanwhile.
      maxAckPendingMs: env.DELIVERY_TIMEOUT_MS + 20_000,
      // Orders need no ordering, and a silent provider must not delay every other provider's orders.
      concurrency: 16,
    });
    return {
      operations: {
        probe: probeRail({
          http,
          timeoutMs: env.PROBE_TIMEOUT_MS,
          allowHttpLoopback: env.ALLOW_HTTP_LOOPBACK_ENDPOINTS,
        }),
        'orders.pull': pullOrders({ orders, outbox, metrics }),
        'orders.ack': ackOrder({ orders, outbox, metrics }),
        'orders.get': getOrder({ orders, outbox, metrics }),
        'deliveries.get': getDeliveries(orders),
      },
      async stop() {
        await consumer.stop();
        await expiry.stop();
        await outbox.stop();
        await http.close();
      },
    };
  },
};
