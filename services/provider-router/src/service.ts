import { z } from 'zod';
import { ProviderEndpointEnv } from '@mmp/protocol';
import {
  BaseEnv,
  createOutbox,
  createSecretBox,
  type Collection,
  type Doc,
  type ServiceDefinition,
} from '@mmp/platform';
import { ensureIndexes, openRouterDb } from './store/db.js';
import { providerOperations } from './handlers/providers.js';
import { railOperations } from './handlers/rails.js';
import { settlementOperations } from './handlers/settlements.js';
import { queryOperations } from './handlers/queries.js';
import { startRoutingConsumer } from './handlers/consumer.js';
import type { RouterDeps } from './handlers/deps.js';

export const Env = BaseEnv.extend(ProviderEndpointEnv.shape).extend({
  /** Seals signing and webhook secrets at rest (AES-256-GCM). */
  SERVICE_SECRET_KEY: z.string().min(32, 'SERVICE_SECRET_KEY must be at least 32 characters'),
  /** Lifetime of an order before provider-delivery expires it. */
  ORDER_TTL_SECONDS: z.coerce.number().int().positive().default(900),
  /** Delivery failures of a rail within BREAKER_WINDOW_MS that open its circuit breaker. */
  BREAKER_FAILURES: z.coerce.number().int().positive().default(3),
  BREAKER_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  /** How long an open breaker skips its rail before letting one trial order through. */
  BREAKER_COOLDOWN_MS: z.coerce.number().int().positive().default(30_000),
  /** How long a rail test waits for provider-delivery's probe (which itself gives the provider 5 s). */
  RAIL_TEST_TIMEOUT_MS: z.coerce.number().int().positive().default(8_000),
});
export type Env = typeof Env;

export const providerRouterService: ServiceDefinition<Env> = {
  name: 'provider-router',
  env: Env,
  async start({ env, log, nc, naming, store, publish, services, metrics }) {
    const db = openRouterDb(store);
    await ensureIndexes(db);
    const outbox = createOutbox({
      publish,
      log,
      metrics,
      collections: [db.orders, db.settlements] as unknown as Collection<Doc>[],
    });
    const deps: RouterDeps = {
      db,
      outbox,
      box: createSecretBox(env.SERVICE_SECRET_KEY),
      services,
      log,
      now: () => Date.now(),
      config: {
        orderTtlSeconds: env.ORDER_TTL_SECONDS,
        allowHttpLoopback: env.ALLOW_HTTP_LOOPBACK_ENDPOINTS,
        probeTimeoutMs: env.RAIL_TEST_TIMEOUT_MS,
        breaker: {
          threshold: env.BREAKER_FAILURES,
          windowMs: env.BREAKER_WINDOW_MS,
          cooldownMs: env.BREAKER_COOLDOWN_MS,
        },
      },
    };
    outbox.start();
    const consumer = await startRoutingConsumer(deps, { nc, naming });
    return {
      operations: {
        ...providerOperations(deps),
        ...railOperations(deps),
        ...settlementOperations(deps),
        ...queryOperations(deps),
      },
      async stop() {
        await consumer.stop();
        await outbox.stop();
      },
    };
  },
};
