import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { appError } from '@mmp/protocol';
import type { IdempotencyKeys, Logger, MetricsRegistry, SecretBox, ServiceClient } from '@mmp/platform';
import type { Accounts } from '../handlers/accounts.js';
import type { DocumentedRoute, ForwardedRoute } from '../routes/route.js';
import { adminLocalRoutes } from './admin.js';
import { errorFormOf, registerEdge, requestIdOf } from './edge.js';
import { shapeError, toAppError } from './errors.js';
import { registerForwardedRoutes } from './forward.js';
import { registerHealth } from './health.js';
import { registerIdempotency, type RememberedReply } from './idempotency.js';
import { registerLocalRoutes } from './local-route.js';
import { registerHttpMetrics } from './metrics.js';
import { buildOpenApiDocument } from './openapi.js';

export type GatewaySettings = {
  adminToken: string;
  publicUrl: string;
  bodyLimitBytes: number;
  trustProxy: boolean;
  healthTimeoutMs: number;
  rateLimit: {
    keyMax: number;
    ipMax: number;
    windowMs: number;
    /** Counters shared by every replica; without it, each instance counts in memory. */
    redis?: Redis;
    nameSpace?: string;
  };
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
  services: ServiceClient;
  accounts: Accounts;
  idempotencyKeys: IdempotencyKeys<RememberedReply>;
  /** Seals the answers kept for Idempotency-Key replays. */
  box: SecretBox;
  routes: ForwardedRoute[];
  /** The service's registry: requests and latency per route. */
  metrics: MetricsRegistry;
};

const ownRoutes: DocumentedRoute[] = [
  {
    method: 'GET',
    url: '/v1/health',
    auth: 'public',
    errorForm: 'envelope',
    tag: 'System',
    summary: 'Whether every service answers',
    schema: {
      responses: {
        200: z.object({
          status: z.enum(['ok', 'degraded']),
          services: z.record(z.string(), z.enum(['ok', 'unavailable'])),
        }),
        503: z.object({
          status: z.enum(['ok', 'degraded']),
          services: z.record(z.string(), z.enum(['ok', 'unavailable'])),
        }),
      },
    },
  },
  {
    method: 'GET',
    url: '/v1/openapi.json',
    auth: 'public',
    errorForm: 'envelope',
    tag: 'System',
    summary: 'This document',
    schema: {
      responses: {
        200: z.looseObject({ openapi: z.literal('3.1.0'), paths: z.record(z.string(), z.unknown()) }),
      },
    },
  },
];

/**
 * The gateway's HTTP app, without listening: the only edge of the system. It
 * authenticates, authorises, rate-limits, shapes errors and forwards to services over NATS.
 */
export async function buildGatewayApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const { settings } = deps;
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: settings.bodyLimitBytes,
    trustProxy: settings.trustProxy,
    genReqId: requestIdOf,
    // One access line per request instead of Fastify's two: registerEdge writes it.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    return503OnClosing: true,
    // Ids are short; a longer path segment still reaches its route, which answers 404 in its
    // own error form. Past this, or with broken percent-encoding, frameworkErrors answers.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    frameworkErrors: (error, request, reply) => {
      const known =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? appError('resource_not_found', 'No such resource.')
          : appError('invalid_request', 'The URL is malformed.');
      const { status, body } = shapeError(known, 'envelope', request.id);
      void (reply as FastifyReply).code(status).type('application/json; charset=utf-8').send(body);
    },
  });

  const served: ServedRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      served.push({
        method,
        url: route.url,
        page: (route.config as { page?: boolean } | undefined)?.page === true,
      });
    }
  });
  app.decorate('servedRoutes', served);

  registerEdge(app, { https: settings.publicUrl.startsWith('https://') });
  registerHttpMetrics(app, deps.metrics);

  app.setErrorHandler((error, request, reply) => {
    const { error: appErr, unexpected } = toAppError(error);
    if (unexpected) request.log.error({ err: error }, 'request failed');
    else if (appErr.status >= 500) request.log.warn({ code: appErr.code }, appErr.message);
    const { status, body } = shapeError(appErr, errorFormOf(request), request.id);
    return reply.code(status).type('application/json; charset=utf-8').send(body);
  });

  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    ...(settings.rateLimit.redis
      ? { redis: settings.rateLimit.redis, nameSpace: settings.rateLimit.nameSpace }
      : {}),
    // A counter store that fails (Redis down or slow) lets the request through: fail open.
    skipOnError: true,
    timeWindow: settings.rateLimit.windowMs,
    keyGenerator: (request) => request.rateKey ?? `ip:${request.ip}`,
    max: (_request, key) => (key.startsWith('ip:') ? settings.rateLimit.ipMax : settings.rateLimit.keyMax),
    errorResponseBuilder: (_request, context) =>
      appError('rate_limit_exceeded', `Rate limit exceeded; retry in ${Math.ceil(context.ttl / 1000)} s.`),
  });

  registerIdempotency(app, { keys: deps.idempotencyKeys, box: deps.box });

  app.setNotFoundHandler({ preHandler: app.rateLimit() }, async (request) => {
    throw appError('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`);
  });

  const localRoutes = adminLocalRoutes(deps);
  const document = buildOpenApiDocument([...ownRoutes, ...localRoutes, ...deps.routes], settings.publicUrl);
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), page: true };
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      uiConfig: { validatorUrl: null } as never,
    });
  });
  app.get('/v1/openapi.json', async () => document);

  registerHealth(app, { services: deps.services, timeoutMs: settings.healthTimeoutMs });
  registerLocalRoutes(app, localRoutes, { accounts: deps.accounts, adminToken: settings.adminToken });
  registerForwardedRoutes(app, deps.routes, {
    services: deps.services,
    accounts: deps.accounts,
    adminToken: settings.adminToken,
  });
  return app;
}
