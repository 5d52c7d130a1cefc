import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createTestSystem } from '@mmp/platform/testing';
import { rateLimitNameSpace } from '../src/http/shared-rate-limits.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';

const redisUrl = process.env.RATE_LIMIT_TEST_REDIS_URL || 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<string | undefined> {
  const probe = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    probe.disconnect();
  }
}

const unavailable = await redisAnswers();
if (unavailable) {
  console.warn(
    `skipping the shared rate-limit test: no Redis answers at ${redisUrl} (${unavailable}); set RATE_LIMIT_TEST_REDIS_URL`,
  );
}

const system = createTestSystem('gwredis');
const gateways: TestGateway[] = [];

/** One more replica of the same deployment: same NATS prefix, its own data folder. */
async function startReplica(name: string, env: Record<string, string>): Promise<TestGateway> {
  const replica = await startTestGateway({
    routes: [],
    system,
    env: { DATA_DIR: `${system.env.DATA_DIR}/${name}`, LOG_LEVEL: 'info', ...env },
  });
  gateways.push(replica);
  return replica;
}

const openApi = (replica: TestGateway) => replica.http('GET', '/v1/openapi.json');

afterAll(async () => {
  for (const gateway of gateways) await gateway.stop({ keep: true });
  if (!unavailable) {
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${rateLimitNameSpace(system.prefix)}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
  await system.cleanup();
});

describe.skipIf(unavailable !== undefined)('rate limits shared through Redis', () => {
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    const env = { RATE_LIMIT_REDIS_URL: redisUrl, RATE_LIMIT_IP_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' };
    a = await startReplica('a', env);
    b = await startReplica('b', env);
  });

  it('counts requests on two gateways against one budget', async () => {
    const statuses = [];
    for (const replica of [a, a, b]) statuses.push((await openApi(replica)).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await openApi(b);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.json.error.code).toBe('too_many_requests');
    expect((await openApi(a)).status).toBe(429);
  });

  it('keeps its counters under the NATS prefix of the deployment', async () => {
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${rateLimitNameSpace(system.prefix)}*`);
    redis.disconnect();
    expect(keys).toEqual([`${rateLimitNameSpace(system.prefix)}ip:127.0.0.1`]);
  });
});

describe('rate limits when Redis is down', () => {
  it('serves requests uncounted (fail open) and says so in the log', async () => {
    // Nothing listens on port 1: every counter update fails at once.
    const replica = await startReplica('down', {
      RATE_LIMIT_REDIS_URL: 'redis://127.0.0.1:1',
      RATE_LIMIT_IP_MAX: '1',
    });
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect((await openApi(replica)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(replica.logs.text()).toContain('rate-limit Redis unreachable');
    expect(replica.logs.text()).not.toContain('redis://');
  });
});
