import {
  answerOrders,
  freePort,
  makeTestCertificate,
  signedWith,
  startProviderEndpoint,
  type ProviderEndpoint,
} from '@mmp/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexHmac } from '@mmp/protocol';
import type { RunningSystem } from './support/system.js';
import { api } from './support/http.js';
import { startWithTrustedProviders } from './support/routing-harness.js';

/**
 * Issue 5's rail state rows through the real path: the provider calls the gateway over
 * HTTP, and provider-router (its own process, trusting this run's self-signed certificate
 * through NODE_EXTRA_CA_CERTS) sends a signed health.check to a real HTTPS endpoint. The
 * endpoint is on loopback, so the development switch is on (it opens loopback only). Also
 * the settlement webhook's answer to a signed body that is not JSON.
 */
const certificate = makeTestCertificate();
let system: RunningSystem;
let endpoint: ProviderEndpoint;
let provider: { id: string; apiKey: string; signingSecret: string };
let portal: ReturnType<typeof api>;

beforeAll(async () => {
  system = await startWithTrustedProviders(certificate, { RAIL_TEST_TIMEOUT_MS: '5000' });
  endpoint = await startProviderEndpoint(certificate);
  endpoint.on('/ok', answerOrders('ACCEPTED'));
  endpoint.on('/wrong-nonce', () => ({ status: 200, body: { type: 'health.ack', nonce: 'f'.repeat(32) } }));
  endpoint.on('/missing-nonce', () => ({ status: 200, body: { type: 'health.ack' } }));
  endpoint.on('/500', () => ({ status: 500, body: { error: 'boom' } }));
  endpoint.on('/silent', () => 'silence');
  provider = await system.admin('POST', '/v1/admin/providers', { name: 'Rail States Co' });
  portal = api(system.baseUrl, provider.apiKey);
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
  await system?.stop();
  certificate.remove();
});

type RailView = {
  id: string;
  status: string;
  secret?: string;
  lastTest: { ok: boolean; reason: string; httpStatus: number | null } | null;
};

const RAIL = {
  transport: 'webhook',
  networks: ['ORANGE_MONEY'],
  countries: ['CM'],
  currencies: ['XAF'],
  environment: 'sandbox',
};

async function railAt(url: string) {
  const created = await portal<RailView>('POST', '/v1/provider/rails', { ...RAIL, endpoint: url });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('PENDING');
  return created.body;
}

describe('rail test over HTTPS through provider-router', () => {
  it('PENDING + 200 health.ack echoing the fresh nonce -> TESTED, then activation', async () => {
    const rail = await railAt(endpoint.url('/ok'));
    const before = endpoint.calls.length;
    const tested = await portal<RailView>('POST', `/v1/provider/rails/${rail.id}/test`);
    expect(tested).toMatchObject({
      status: 200,
      body: { status: 'TESTED', lastTest: { ok: true, httpStatus: 200 } },
    });
    const [check] = endpoint.calls.slice(before);
    expect(check).toMatchObject({ path: '/ok', event: 'health.check', body: { type: 'health.check' } });
    expect(check!.body.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(signedWith(rail.secret!, check!)).toBe(true);
    await portal('POST', `/v1/provider/rails/${rail.id}/test`);
    expect(endpoint.calls.at(-1)!.body.nonce).not.toBe(check!.body.nonce);
    expect((await portal('POST', `/v1/provider/rails/${rail.id}/activate`)).body).toMatchObject({
      status: 'ACTIVE',
    });
  });

  it.each([
    ['a wrong nonce', () => endpoint.url('/wrong-nonce'), 200, 'the health.ack echoes a different nonce'],
    ['a missing nonce', () => endpoint.url('/missing-nonce'), 200, 'the health.ack carries no nonce'],
    ['a non-2xx answer', () => endpoint.url('/500'), 500, 'HTTP 500'],
  ])('PENDING + %s -> PENDING with the reason shown', async (_row, url, httpStatus, reason) => {
    const rail = await railAt(url());
    const tested = await portal<RailView>('POST', `/v1/provider/rails/${rail.id}/test`);
    expect(tested.body).toMatchObject({ status: 'PENDING', lastTest: { ok: false, httpStatus, reason } });
    await expectShownAndRefused(rail.id, reason);
  });

  it('PENDING + an endpoint that never answers -> the probe times out and says so, not a 503', async () => {
    // The probe's 5 s equal the gateway's default wait (REQUEST_TIMEOUT_MS); the test
    // operation's own wait covers the probe, so the provider reads the timeout, not 503.
    const rail = await railAt(endpoint.url('/silent'));
    const started = Date.now();
    const tested = await portal<RailView>('POST', `/v1/provider/rails/${rail.id}/test`);
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(tested.body).toMatchObject({ status: 'PENDING', lastTest: { ok: false, httpStatus: null } });
    expect(tested.body.lastTest!.reason).toMatch(/tim/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
    await expectShownAndRefused(rail.id, tested.body.lastTest!.reason);
  }, 30_000);

  it('PENDING + an unreachable host -> PENDING with the reason shown', async () => {
    const rail = await railAt(`https://127.0.0.1:${await freePort()}/mmp`);
    const tested = await portal<RailView>('POST', `/v1/provider/rails/${rail.id}/test`);
    expect(tested.body).toMatchObject({ status: 'PENDING', lastTest: { ok: false, httpStatus: null } });
    expect(tested.body.lastTest!.reason).toBe('unreachable: connection refused');
    await expectShownAndRefused(rail.id, tested.body.lastTest!.reason);
  });

  it('PENDING + a non-HTTPS endpoint -> PENDING, nothing sent', async () => {
    const rail = await railAt('http://rail.example/mmp');
    const before = endpoint.calls.length;
    const tested = await portal<RailView>('POST', `/v1/provider/rails/${rail.id}/test`);
    const reason = 'the endpoint must use https://';
    expect(tested.body).toMatchObject({
      status: 'PENDING',
      lastTest: { ok: false, httpStatus: null, reason },
    });
    expect(endpoint.calls.length).toBe(before);
    await expectShownAndRefused(rail.id, reason);
  });

  it('a private or link-local endpoint is refused at creation, naming endpoint', async () => {
    for (const url of [
      'https://10.0.0.7/mmp',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/mmp',
    ]) {
      const created = await portal<{ error: { code: string; errors: { field: string; message: string }[] } }>(
        'POST',
        '/v1/provider/rails',
        { ...RAIL, endpoint: url },
      );
      expect(created.status, url).toBe(422);
      expect(created.body.error).toMatchObject({
        code: 'validation_error',
        errors: [{ field: 'endpoint', message: 'the endpoint must be a public address' }],
      });
    }
  });
});

/** The reason is on the rail as read back, and activation is refused naming it. */
async function expectShownAndRefused(railId: string, reason: string) {
  const shown = await portal<RailView>('GET', `/v1/provider/rails/${railId}`);
  expect(shown.body).toMatchObject({ status: 'PENDING', lastTest: { ok: false, reason } });
  const activation = await portal<{ error: { code: string; message: string } }>(
    'POST',
    `/v1/provider/rails/${railId}/activate`,
  );
  expect(activation.status).toBe(409);
  expect(activation.body.error.code).toBe('invalid_state');
  expect(activation.body.error.message).toContain(`Last test failed: ${reason}`);
}

describe('the settlement webhook over HTTP', () => {
  it('answers a correctly signed body that is not JSON with 422 naming the body', async () => {
    const raw = '{"protocol_version": "1", "idempotency_key": ';
    const response = await fetch(`${system.baseUrl}/v1/provider/webhooks/${provider.id}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-signature': hexHmac(provider.signingSecret, raw),
      },
      body: raw,
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      error: {
        code: 'validation_error',
        http_status: 422,
        errors: [{ field: 'body', message: 'body is not valid JSON' }],
      },
    });
    const unsigned = await fetch(`${system.baseUrl}/v1/provider/webhooks/${provider.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': 'ab'.repeat(32) },
      body: raw,
    });
    expect(unsigned.status).toBe(403);
  });
});
