import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { BusClient, IdempotencyKeys, Logger, MetricsRegistry, SecretBox } from '@mmp/platform';
import type { Accounts } from '../handlers/accounts.js';
import { documented, type ForwardedRoute } from '../routes/route.js';
import type { TrustProxy } from '../config.js';
import { adminLocalRoutes } from './admin.js';
import { certificationEventsRoute } from './certification-events.js';
import { docsPlugin } from './docs.js';
import { edgePlugin, frameworkErrors, requestIdOf } from './edge.js';
import { forwardPlugin } from './forward.js';
import { guardPlugin } from './guard.js';
import { healthPlugin } from './health.js';
import { idempotencyPlugin, type RememberedReply } from './idempotency.js';
import { localRoutesPlugin } from './local-route.js';
import { httpMetricsPlugin } from './metrics.js';
import { rateLimitPlugin, type RateLimitSettings } from './rate-limit.js';
import { childOnFirstLine } from './request-logger.js';
import { schemaController } from './schema-controller.js';
import type { ReplyCache } from './reply-cache.js';

export type GatewaySettings = {
  adminToken: string;
  publicUrl: string;
  bodyLimitBytes: number;
  trustProxy: TrustProxy;
  healthTimeoutMs: number;
  rateLimit: RateLimitSettings;
};

export type ServedRoute = { method: string; url: string; page: boolean };

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, for the test that checks the OpenAPI document covers them. */
    servedRoutes: ServedRoute[];
  }
}

export type GatewayDeps = {
  settings: GatewaySettings;
  log: Logger;
  bus: BusClient;
  accounts: Accounts;
  idempotencyKeys: IdempotencyKeys<RememberedReply>;
  /** Seals the answers kept for Idempotency-Key replays. */
  box: SecretBox;
  routes: ForwardedRoute[];
  /** Merchant reads kept until their resource changes; none asks the services every time. */
  replies?: ReplyCache;
  /** The service's registry: requests and latency per route. */
  metrics: MetricsRegistry;
};

/**
 * Fastify refuses a bare hop count (it cannot tell the proxy from a client connecting
 * directly); given one, the gateway trusts that many nearest hops, as proxy-addr counts them.
 */
function trustProxyOf(setting: TrustProxy) {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}

function createFastify(settings: GatewaySettings, log: Logger, https: boolean): FastifyInstance {
  return Fastify({
    loggerInstance: log as FastifyBaseLogger,
    bodyLimit: settings.bodyLimitBytes,
    trustProxy: trustProxyOf(settings.trustProxy),
    genReqId: requestIdOf,
    // One access line per request instead of Fastify's two: the edge plugin writes it.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    childLoggerFactory: childOnFirstLine,
    return503OnClosing: true,
    // Ids are short; a longer path segment still reaches its route, which answers 404 in its
    // own error form. Past this, or with broken percent-encoding, frameworkErrors answers.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    frameworkErrors: frameworkErrors(https),
    schemaController,
  });
}

/**
 * The gateway's HTTP app, without listening: the only edge of the system. It
 * authenticates, authorises, rate-limits, shapes errors and forwards to services over NATS.
 * Each concern is a plugin: the ones every route shares break encapsulation (edge, metrics,
 * guard, rate limit, idempotency), the route plugins register inside their own context.
 */
export async function buildGatewayApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const { settings } = deps;
  const https = settings.publicUrl.startsWith('https://');
  const app = createFastify(settings, deps.log, https);
  const served: ServedRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      served.push({ method, url: route.url, page: route.config?.page === true });
    }
  });
  app.decorate('servedRoutes', served);

  const localRoutes = [
    ...adminLocalRoutes({ accounts: deps.accounts, bus: deps.bus }),
    certificationEventsRoute(deps.bus),
  ];
  await app.register(edgePlugin, { https });
  await app.register(httpMetricsPlugin, { registry: deps.metrics });
  await app.register(guardPlugin, { accounts: deps.accounts, adminToken: settings.adminToken });
  await app.register(rateLimitPlugin, settings.rateLimit);
  await app.register(idempotencyPlugin, { keys: deps.idempotencyKeys, box: deps.box });
  await app.register(docsPlugin, {
    routes: [...localRoutes, ...deps.routes.map(documented)],
    publicUrl: settings.publicUrl,
  });
  await app.register(healthPlugin, { bus: deps.bus, timeoutMs: settings.healthTimeoutMs });
  await app.register(localRoutesPlugin, { routes: localRoutes });
  await app.register(forwardPlugin, { routes: deps.routes, bus: deps.bus, replies: deps.replies });
  return app;
}
