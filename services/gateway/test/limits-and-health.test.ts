import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_NAMES } from '@mmp/protocol';
import type { ForwardedRoute } from '../src/routes/route.js';
import { createProject, startTestGateway, type TestGateway } from './support.js';

const meta = { summary: 'test route', tag: 'Test' };
const routes: ForwardedRoute[] = [
  {
    ...meta,
    method: 'GET',
    url: '/v1/payments',
    service: 'payments',
    operation: 'list',
    auth: 'merchant',
    scope: 'payments:read',
    errorForm: 'simple',
  },
  {
    ...meta,
    method: 'GET',
    url: '/v1/pay/:shortCode',
    service: 'links-checkout',
    operation: 'links.public',
    auth: 'public',
    errorForm: 'simple',
  },
];

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    routes,
    label: 'gwlimits',
    env: {
      RATE_LIMIT_KEY_MAX: '3',
      RATE_LIMIT_IP_MAX: '2',
      RATE_LIMIT_WINDOW_MS: '60000',
      HEALTH_TIMEOUT_MS: '300',
    },
  });
  await gw.serve('payments', { list: async () => ({ status: 200, body: { data: [] } }) });
  await gw.serve('links-checkout', { 'links.public': async () => ({ status: 200, body: {} }) });
});

afterAll(async () => {
  await gw?.stop();
});

describe('rate limits', () => {
  it('limits each key on its own, with Retry-After and X-RateLimit-* headers', async () => {
    const shop = await createProject(gw);
    for (let i = 0; i < 3; i++) {
      const ok = await gw.http('GET', '/v1/payments', { token: shop.testSecret.key });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('3');
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
    }
    const limited = await gw.http('GET', '/v1/payments', { token: shop.testSecret.key });
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({
      statusCode: 429,
      error: 'Too Many Requests',
      code: 'rate_limit_exceeded',
    });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-reset')).toBeTruthy();
    expect(limited.headers.get('x-request-id')).toMatch(/^req_/);
    // Another key of the same client has its own budget.
    expect((await gw.http('GET', '/v1/payments', { token: shop.liveSecret.key })).status).toBe(200);
  });

  it('limits public routes per client IP, unknown routes included', async () => {
    expect((await gw.http('GET', '/v1/pay/AbCd1234')).status).toBe(200);
    expect((await gw.http('GET', '/v1/pay/AbCd1234')).status).toBe(200);
    const limited = await gw.http('GET', '/v1/pay/AbCd1234');
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe('rate_limit_exceeded');
    const unknown = await gw.http('GET', '/v1/unknown');
    expect(unknown.status).toBe(429);
    expect(unknown.json.error).toMatchObject({
      code: 'rate_limit_exceeded',
      type: 'rate_limit_error',
      http_status: 429,
    });
  });
});

describe('GET /v1/health', () => {
  it('is 503 naming the services that do not answer, then 200 once all do', async () => {
    const before = await fetch(`${gw.url}/v1/health`);
    expect(before.status).toBe(503);
    const degraded = (await before.json()) as { status: string; services: Record<string, string> };
    expect(degraded.status).toBe('degraded');
    expect(degraded.services.gateway).toBe('ok');
    expect(degraded.services['provider-router']).toBe('unavailable');

    for (const name of SERVICE_NAMES.filter((n) => n !== 'gateway')) {
      await gw.serve(name, { ping: async () => ({ status: 200, body: { service: name, status: 'ok' } }) });
    }
    const after = await fetch(`${gw.url}/v1/health`);
    expect(after.status).toBe(200);
    const healthy = (await after.json()) as { status: string; services: Record<string, string> };
    expect(healthy.status).toBe('ok');
    expect(Object.keys(healthy.services).sort()).toEqual([...SERVICE_NAMES].sort());
  });
});
