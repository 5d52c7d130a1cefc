import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operation } from '@mmp/platform';
import { SERVICE_NAMES, pingOperation } from '@mmp/protocol';
import { expectEnvelopeError, expectSimpleError, startTestGateway } from './fixtures/gateway.js';
import type { TestGateway } from './fixtures/gateway.js';
import { paymentsListRoute, publicLinkRoute, serveReadRoutes } from './fixtures/read-routes.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    routes: [paymentsListRoute, publicLinkRoute],
    label: 'gwlimits',
    env: {
      RATE_LIMIT_KEY_MAX: '3',
      RATE_LIMIT_IP_MAX: '2',
      RATE_LIMIT_WINDOW_MS: '60000',
      HEALTH_TIMEOUT_MS: '300',
    },
  });
  await serveReadRoutes(gw);
});

afterAll(async () => {
  await gw?.stop();
});

describe('rate limits', () => {
  it('limits each key on its own, with Retry-After and X-RateLimit-* headers', async () => {
    const shop = await gw.createProject();
    for (let i = 0; i < 3; i++) {
      const ok = await gw.http('GET', '/v1/payments', { token: shop.testSecret.key });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('3');
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
    }
    const limited = await gw.http('GET', '/v1/payments', { token: shop.testSecret.key });
    expectSimpleError(limited, 429, 'rate_limit_exceeded');
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
    expect(limited.json.code).toBe('too_many_requests');
    const unknown = await gw.http('GET', '/v1/unknown');
    expectEnvelopeError(unknown, 429, 'too_many_requests');
    expect(unknown.json.error.type).toBe('rate_limit_error');
  });
});

describe('GET /v1/health', () => {
  it('is 503 naming the services that do not answer, then 200 once all do', async () => {
    const before = await gw.http('GET', '/v1/health');
    expect(before.status).toBe(503);
    expect(before.json.status).toBe('degraded');
    expect(before.json.services.gateway).toBe('ok');
    expect(before.json.services['provider-router']).toBe('unavailable');

    await gw.serve(
      ...SERVICE_NAMES.filter((name) => name !== 'gateway').map((name) =>
        operation(pingOperation(name), async () => ({
          service: name,
          status: 'ok' as const,
          store: 'embedded' as const,
        })),
      ),
    );
    const after = await gw.http('GET', '/v1/health');
    expect(after.status).toBe(200);
    expect(after.json.status).toBe('ok');
    expect(Object.keys(after.json.services).sort()).toEqual([...SERVICE_NAMES].sort());
  });
});
