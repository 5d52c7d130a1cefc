import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  BaseEnv,
  createIdempotencyKeys,
  createSecretBox,
  ensureIdempotencyIndex,
  type IdempotencyRecord,
  type RunningService,
  type ServiceContext,
  type ServiceDefinition,
} from '@mmp/platform';
import { createAccounts } from './handlers/accounts.js';
import { gatewayOperations } from './handlers/operations.js';
import { buildGatewayApp } from './http/app.js';
import type { RememberedReply } from './http/idempotency.js';
import { connectRateLimitRedis, rateLimitNameSpace } from './http/shared-rate-limits.js';
import { forwardedRoutes } from './routes/index.js';
import type { ForwardedRoute } from './routes/route.js';
import { openAccountsStore } from './store/accounts.js';

export const Env = BaseEnv.extend({
  /** Bearer token of the admin API (`/v1/admin/…`) and the `mmp` CLI. */
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters'),
  /** Keys the HMAC-SHA256 hashes under which API keys are stored. */
  SERVICE_SECRET_KEY: z.string().min(32, 'must be at least 32 characters'),
  GATEWAY_HOST: z.string().default('127.0.0.1'),
  /** 0 picks a free port (tests); read it back with `gatewayUrl(running)`. */
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Where clients reach the gateway; the OpenAPI server URL. */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
    .default('http://127.0.0.1:3000'),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /**
   * Requests per window for each API key, provider key or the admin token: 100 per second,
   * enough for a busy merchant backend and a pull provider polling several times a second.
   */
  RATE_LIMIT_KEY_MAX: z.coerce.number().int().positive().default(6000),
  /**
   * Requests per window for each client IP on public routes (and failed authentications).
   * Mobile operators put many shoppers behind one carrier-grade NAT address, each hosted
   * page polling its status every 2 s, so this is per address, not per person.
   */
  RATE_LIMIT_IP_MAX: z.coerce.number().int().positive().default(1200),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * Unset: each gateway instance counts on its own (N replicas give up to N times the budget).
   * Set (`redis://[:password@]host:6379[/db]`): replicas share counters in that Redis, under
   * keys namespaced by NATS_PREFIX. If Redis is unreachable, requests are served uncounted
   * (fail open): a payments API stays available rather than refusing every payer.
   */
  RATE_LIMIT_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** Trust X-Forwarded-For from the ingress, so per-IP limits see the client, not the proxy. */
  TRUST_PROXY: z.stringbool().default(false),
  /** How long a request repeating an Idempotency-Key waits for the first one's answer. */
  IDEMPOTENCY_WAIT_MS: z.coerce.number().int().nonnegative().default(3000),
  /** After this long a claimed Idempotency-Key whose request never answered (crash) may be retried. */
  IDEMPOTENCY_STALE_MS: z.coerce.number().int().positive().default(30_000),
  /** How long `/v1/health` waits for each service's ping. */
  HEALTH_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
});
export type Env = typeof Env;

const started = new WeakMap<object, { url: string; app: FastifyInstance }>();

function startedGateway(running: RunningService | ServiceContext<BaseEnv>) {
  const gateway = started.get('context' in running ? running.context : running);
  if (!gateway) throw new Error('this service is not a started gateway');
  return gateway;
}

/** The URL the gateway of a running system listens on (useful with GATEWAY_PORT=0). */
export function gatewayUrl(running: RunningService | ServiceContext<BaseEnv>): string {
  return startedGateway(running).url;
}

/** The Fastify app of a running gateway: its served routes, or inject() for pure edge checks. */
export function gatewayApp(running: RunningService | ServiceContext<BaseEnv>): FastifyInstance {
  return startedGateway(running).app;
}

/** The gateway forwarding `routes` (every domain's, by default; tests pass their own). */
export function createGatewayService(options: { routes?: ForwardedRoute[] } = {}): ServiceDefinition<Env> {
  return {
    name: 'gateway',
    env: Env,
    start: (context) => startGateway(context, options.routes ?? forwardedRoutes),
  };
}

export const gatewayService = createGatewayService();

async function startGateway(context: ServiceContext<z.infer<Env>>, routes: ForwardedRoute[]) {
  const { env } = context;
  const accounts = createAccounts(await openAccountsStore(context.store), env.SERVICE_SECRET_KEY);
  const keyRecords = context.store.collection<IdempotencyRecord<RememberedReply>>('idempotency_keys');
  await ensureIdempotencyIndex(keyRecords);
  const idempotencyKeys = createIdempotencyKeys(keyRecords, {
    waitMs: env.IDEMPOTENCY_WAIT_MS,
    staleMs: env.IDEMPOTENCY_STALE_MS,
  });
  const redis = env.RATE_LIMIT_REDIS_URL
    ? await connectRateLimitRedis(env.RATE_LIMIT_REDIS_URL, context.log.child({ component: 'rate-limit' }))
    : undefined;
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
    log: context.log.child({ component: 'http' }),
    services: context.services,
    accounts,
    idempotencyKeys,
    box: createSecretBox(env.SERVICE_SECRET_KEY),
    routes,
    metrics: context.metrics,
  });
  await app.listen({ host: env.GATEWAY_HOST, port: env.GATEWAY_PORT });
  const { port } = app.server.address() as AddressInfo;
  const host = env.GATEWAY_HOST.includes(':') ? `[${env.GATEWAY_HOST}]` : env.GATEWAY_HOST;
  started.set(context, { url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`, app });
  context.log.info({ port }, 'gateway listening');
  return {
    operations: gatewayOperations(accounts),
    stop: async () => {
      await app.close();
      redis?.disconnect();
    },
    readiness: { http: async () => app.server.listening },
  };
}
