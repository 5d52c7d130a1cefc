import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricSample } from '@mmp/platform/testing';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { publicLinkRoute, serveReadRoutes } from './fixtures/read-routes.js';

/** What an operator alerts on at the edge: requests and latency per route and status class. */

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    routes: [publicLinkRoute],
    label: 'gwmetrics',
    env: { REQUEST_TIMEOUT_MS: '300' },
  });
});
afterAll(() => gw?.stop());

async function sample(labels: Record<string, string>, name = 'mmp_http_requests_total'): Promise<number> {
  return metricSample(await gw.running.context.metrics.metrics(), name, labels);
}

describe('gateway metrics', () => {
  it('count requests per route pattern and status class, with their latency', async () => {
    const route = { method: 'GET', route: '/v1/pay/:shortCode', service: 'gateway' };
    // links-checkout is not running: 503 service_unavailable.
    expect((await gw.http('GET', '/v1/pay/abc')).status).toBe(503);
    await serveReadRoutes(gw);
    expect((await gw.http('GET', '/v1/pay/abc')).status).toBe(200);
    expect((await gw.http('GET', '/v1/pay/def')).status).toBe(200);
    expect((await gw.http('GET', '/v1/nowhere')).status).toBe(404);

    expect(await sample({ ...route, status_class: '2xx' })).toBe(2);
    expect(await sample({ ...route, status_class: '5xx' })).toBe(1);
    expect(await sample({ route: 'unmatched', status_class: '4xx' })).toBe(1);
    expect(await sample({ ...route, status_class: '2xx' }, 'mmp_http_request_duration_seconds_count')).toBe(
      2,
    );
    expect(await sample({ target: 'links-checkout', outcome: 'unavailable' }, 'mmp_calls_total')).toBe(1);
  });
});
