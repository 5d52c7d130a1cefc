import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import {
  createIdempotencyKeys,
  createSecretBox,
  ensureIdempotencyIndex,
  type IdempotencyRecord,
  type ServiceDefinition,
  type ServiceKit,
} from '@mmp/platform';
import { notices } from '@mmp/protocol';
import { Env } from './config.js';
import { createAccounts } from './handlers/accounts.js';
import { announceProjects } from './handlers/announce-projects.js';
import { buildGatewayApp } from './http/app.js';
import type { RememberedReply } from './http/idempotency.js';
import { connectRateLimitRedis, rateLimitNameSpace } from './http/shared-rate-limits.js';
import { createReplyCache, type ReplyCache } from './http/reply-cache.js';
import { forwardedRoutes } from './routes/index.js';
import type { ForwardedRoute } from './routes/route.js';
import { openAccountsStore, projectsCollection } from './store/accounts.js';

export type GatewayKit = ServiceKit<z.infer<Env>>;

export type GatewayOptions = {
  /** The routes forwarded: every domain's by default; tests pass their own. */
  routes?: ForwardedRoute[];
  /**
   * What is done with the built app: by default it listens on GATEWAY_HOST:GATEWAY_PORT.
   * Tests keep it to `inject()` requests without opening a port.
   */
  expose?: (app: FastifyInstance, kit: GatewayKit) => Promise<void>;
};

/** Listens, reports the listener in readiness, and names the port (GATEWAY_PORT=0 picks one). */
async function listen(app: FastifyInstance, kit: GatewayKit): Promise<void> {
  await app.listen({ host: kit.env.GATEWAY_HOST, port: kit.env.GATEWAY_PORT });
  kit.readiness('http', async () => app.server.listening);
  kit.log.info({ port: (app.server.address() as AddressInfo).port }, 'gateway listening');
}

/** The cache of merchant reads, dropping what each notice of the routes that keep replies names. */
function keepReplies(kit: GatewayKit, routes: ForwardedRoute[]): ReplyCache {
  const replies = createReplyCache({ ttlMs: kit.env.REPLY_CACHE_MS, registry: kit.metrics });
  const heard = new Set(routes.flatMap((route) => (route.keptUntil ? [route.keptUntil.notice] : [])));
  for (const notice of heard) {
    kit.notices.hear(notice, (id) => replies.forget(id === '*' ? '*' : `${notice.topic}:${id}`), {
      missed: () => replies.forget('*'),
    });
  }
  return replies;
}

async function setup(kit: GatewayKit, options: GatewayOptions): Promise<void> {
  const { env } = kit;
  const outbox = kit.outbox([projectsCollection(kit.store)]);
  const accountsStore = await openAccountsStore(kit.store, outbox);
  await announceProjects(accountsStore, kit.log);
  const keyRecords = kit.store.collection<IdempotencyRecord<RememberedReply>>('idempotency_keys');
  await ensureIdempotencyIndex(keyRecords);
  const redis = env.RATE_LIMIT_REDIS_URL
    ? await connectRateLimitRedis(env.RATE_LIMIT_REDIS_URL, kit.log.child({ component: 'rate-limit' }))
    : undefined;
  // Stops run in reverse: the app closes (in-flight requests answered) before Redis goes.
  if (redis) kit.onStop(async () => redis.disconnect());
  const accounts = createAccounts(accountsStore, env.SERVICE_SECRET_KEY, {
    credentialsCacheMs: env.CREDENTIALS_CACHE_MS,
    sharedBy: { notices: kit.notices, notice: notices.credentialsChanged },
  });
  const routes = options.routes ?? forwardedRoutes;
  const replies = env.REPLY_CACHE_MS > 0 ? keepReplies(kit, routes) : undefined;
  const app = await buildGatewayApp({
    settings: {
      adminToken: env.ADMIN_TOKEN,
      publicUrl: env.PUBLIC_URL,
      bodyLimitBytes: env.BODY_LIMIT_BYTES,
      trustProxy: env.TRUST_PROXY,
      healthTimeoutMs: env.HEALTH_TIMEOUT_MS,
      rateLimit: {
        keyMax: env.RATE_LIMIT_KEY_MAX,
        ipMax: env.RATE_LIMIT_IP_MAX,
        windowMs: env.RATE_LIMIT_WINDOW_MS,
        ...(redis ? { redis, nameSpace: rateLimitNameSpace(env.NATS_PREFIX) } : {}),
      },
    },
    log: kit.log.child({ component: 'http' }),
    bus: kit.bus,
    accounts,
    idempotencyKeys: createIdempotencyKeys(keyRecords, {
      waitMs: env.IDEMPOTENCY_WAIT_MS,
      staleMs: env.IDEMPOTENCY_STALE_MS,
    }),
    box: createSecretBox(env.SERVICE_SECRET_KEY),
    routes,
    replies,
    metrics: kit.metrics,
  });
  kit.onStop(() => app.close());
  await (options.expose ?? listen)(app, kit);
}

/**
 * The gateway: the only HTTP edge of the system. It serves no NATS operation but its ping,
 * and announces what payers see of each project by `project.updated`.
 */
export function createGatewayService(options: GatewayOptions = {}): ServiceDefinition<Env> {
  return { name: 'gateway', env: Env, setup: (kit) => setup(kit, options) };
}

export const gatewayService = createGatewayService();
