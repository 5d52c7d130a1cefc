import type { Redis } from 'ioredis';
import type { Logger } from '@mmp/platform';

/**
 * A request never waits on the counter store longer than this: past it, the request is
 * served uncounted (fail open) rather than held up by a slow Redis.
 */
const REDIS_TIMEOUT_MS = 500;

/** Redis keys of one system: replicas of a deployment share them, other NATS prefixes do not. */
export function rateLimitNameSpace(natsPrefix: string): string {
  return `mmp:${natsPrefix || 'default'}:rate-limit:`;
}

/**
 * The ioredis client `@fastify/rate-limit` keeps its counters in, so every gateway replica
 * counts against one budget. Startup waits for one connection attempt at most; an unreachable
 * Redis is logged once per outage (without the URL, which may carry a password) while the
 * client keeps reconnecting in the background. ioredis is imported here, not at load: a
 * gateway without Redis (the default) would carry its 5 to 10 MB for nothing.
 */
export async function connectRateLimitRedis(url: string, log: Logger): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: REDIS_TIMEOUT_MS,
    commandTimeout: REDIS_TIMEOUT_MS,
    // Without a connection, a command fails at once instead of queueing the request behind it.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
  });
  let reachable = true;
  redis.on('error', (error: Error) => {
    if (!reachable) return;
    reachable = false;
    log.warn(
      { reason: error.message },
      'rate-limit Redis unreachable: requests are served without counting until it is back',
    );
  });
  redis.on('ready', () => {
    if (!reachable) log.info('rate-limit Redis reachable again: shared limits apply');
    reachable = true;
  });
  await redis.connect().catch(() => undefined);
  return redis;
}
