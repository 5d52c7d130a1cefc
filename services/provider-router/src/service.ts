import { z } from 'zod';
import {
  RAIL_TEST_MAX_MS,
  providerPortalApi,
  providersAdminApi,
  routerForCertification,
  routerQueries,
  notices,
  settlementsApi,
} from '@mmp/protocol';
import {
  BaseEnv,
  createReadCache,
  createSecretBox,
  operation,
  operations,
  type Resolve,
  type ServiceDefinition,
} from '@mmp/platform';
import { ensureIndexes, openRouterDb } from './store/db.js';
import type { RouterDeps, SigningProvider } from './use-cases/deps.js';
import { adminHandlers, createProviderHandler } from './handlers/admin.js';
import { ROUTER_EVENTS, routerEventHandler, routerEventLane } from './handlers/events.js';
import { certificationHandlers, internalHandlers } from './handlers/internal.js';
import { portalHandlers } from './handlers/portal.js';
import { settlementHandler } from './handlers/settlements.js';

export const Env = BaseEnv.extend({
  /** Seals signing and webhook secrets at rest (AES-256-GCM). */
  SERVICE_SECRET_KEY: z.string().min(32, 'SERVICE_SECRET_KEY must be at least 32 characters'),
  /** Lifetime of an order before provider-delivery expires it. */
  ORDER_TTL_SECONDS: z.coerce.number().int().positive().default(900),
  /** Delivery failures of a rail within BREAKER_WINDOW_MS that open its circuit breaker. */
  BREAKER_FAILURES: z.coerce.number().int().positive().default(3),
  BREAKER_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  /** How long an open breaker skips its rail before letting one trial order through. */
  BREAKER_COOLDOWN_MS: z.coerce.number().int().positive().default(30_000),
  /** How long a rail's endpoint has to answer its test's health.check (specification: about 5 s). */
  RAIL_TEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .max(
      RAIL_TEST_MAX_MS,
      `RAIL_TEST_TIMEOUT_MS must be at most ${RAIL_TEST_MAX_MS}: the gateway waits no longer`,
    )
    .default(5_000),
  /** Clock difference allowed between a settlement's settled_at and this service's clock. */
  SETTLEMENT_CLOCK_SKEW_SECONDS: z.coerce.number().int().nonnegative().default(300),
  /**
   * How long a replica keeps a provider with its opened signing secret for settlements
   * without reading it again, should the notice of a change be lost (0: read every time).
   */
  PROVIDER_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
});

/** Providers kept at most: one entry per provider that settles. */
const KEPT_PROVIDERS_MAX = 1_000;
export type Env = typeof Env;

/**
 * provider-router: providers, rails (and their tests), routing and failover, settlements
 * and reconciliation. `resolve` is for tests only: the names rail endpoints resolve to,
 * instead of the outside DNS.
 */
export function providerRouter(options: { resolve?: Resolve } = {}): ServiceDefinition<Env> {
  return {
    name: 'provider-router',
    env: Env,
    async setup(kit) {
      const { env } = kit;
      // A provider's signing secret is opened once and kept for its settlements; any write
      // of a provider drops it here and, by notice, on the other replicas.
      const providers = createReadCache<SigningProvider>({
        ttlMs: env.PROVIDER_CACHE_MS,
        max: KEPT_PROVIDERS_MAX,
        shared: { notices: kit.notices, notice: notices.providerChanged },
      });
      const db = openRouterDb(kit.store, (provider) => providers.changed(provider?._id ?? '*'));
      await ensureIndexes(db);
      const http = kit.outboundHttp({ resolve: options.resolve });
      const deps: RouterDeps = {
        db,
        providers,
        outbox: kit.outbox([db.orders, db.settlements]),
        box: createSecretBox(env.SERVICE_SECRET_KEY),
        http,
        log: kit.log,
        now: () => Date.now(),
        config: {
          orderTtlSeconds: env.ORDER_TTL_SECONDS,
          allowLoopback: env.ALLOW_HTTP_LOOPBACK_ENDPOINTS,
          railTestTimeoutMs: env.RAIL_TEST_TIMEOUT_MS,
          settlementSkewMs: env.SETTLEMENT_CLOCK_SKEW_SECONDS * 1000,
          breaker: {
            threshold: env.BREAKER_FAILURES,
            windowMs: env.BREAKER_WINDOW_MS,
            cooldownMs: env.BREAKER_COOLDOWN_MS,
          },
        },
      };
      kit.consume({
        durable: 'provider-router',
        events: ROUTER_EVENTS,
        handle: routerEventHandler(deps),
        concurrency: 8,
        laneOf: routerEventLane,
        // Not deduplicated: an order per payment, moves guarded on the order's state and rail,
        // the breaker learning each outcome once by its id, so an event that comes again
        // changes nothing (test/replay.test.ts); a list of handled ids cost a read, a write
        // and a commit per event.
      });

      kit.serve(
        ...operations(providerPortalApi, portalHandlers(deps)),
        operation(settlementsApi.ingest, settlementHandler(deps)),
        ...operations(providersAdminApi, adminHandlers(deps)),
        operation(routerQueries.createProvider, createProviderHandler(deps)),
        ...operations(routerQueries, internalHandlers(deps)),
        ...operations(routerForCertification, certificationHandlers(deps)),
      );
    },
  };
}

export const providerRouterService = providerRouter();
