import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type ProjectKeys, type RunningSystem } from '../support/system.js';
import { api } from '../support/http.js';
import { sessionOf } from '../support/shopper.js';
import { createPayment, expectSimpleError, type Call } from './helpers.js';

/**
 * Low limits on a real system. A bucket's window opens at its first request, so every test
 * spends a bucket of its own (a fresh project's key, or the client IP used only here) and
 * finishes well inside one window.
 */
const KEY_MAX = 5;
const IP_MAX = 4;
const WINDOW_MS = 5_000;

let system: RunningSystem;
let limited: ProjectKeys;
let neighbour: ProjectKeys;
let patient: ProjectKeys;

beforeAll(async () => {
  // The sandbox provider polls with its own key and is not needed: no payment is paid here.
  system = await startSystem({
    external: ['sandbox-provider'],
    env: {
      RATE_LIMIT_KEY_MAX: String(KEY_MAX),
      RATE_LIMIT_IP_MAX: String(IP_MAX),
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
    },
  });
  // Three admin calls: the admin token's own bucket stays under its limit.
  limited = await system.createProject('Busy Shop');
  neighbour = await system.createProject('Neighbour Shop');
  patient = await system.createProject('Patient Shop');
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

type Response = { status: number; body: unknown; headers: Headers };

/**
 * A 429 in the simple form with the headers a client needs to back off: `rate_limit_exceeded`
 * for a key's budget, `too_many_requests` for an address's (callers without a key).
 */
function expectRateLimited(
  response: Response,
  limit: number,
  code: 'rate_limit_exceeded' | 'too_many_requests' = 'rate_limit_exceeded',
) {
  const body = expectSimpleError(response, 429, code);
  expect(body.error).toBe('Too Many Requests');
  expect(body.requestId).toBe(response.headers.get('x-request-id'));
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  expect(Number(response.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(WINDOW_MS / 1000);
  return retryAfter;
}

describe('rate limits on payment routes', () => {
  it('answers 429 rate_limit_exceeded to a key past its budget, and only to that key', async () => {
    const busy = api(system.baseUrl, limited.testSecretKey);
    for (let i = 0; i < KEY_MAX; i += 1) {
      const created = await busy('POST', '/v1/payments', { amount: 1000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.headers.get('x-ratelimit-limit')).toBe(String(KEY_MAX));
      expect(created.headers.get('x-ratelimit-remaining')).toBe(String(KEY_MAX - 1 - i));
    }
    expectRateLimited(await busy('POST', '/v1/payments', { amount: 1000 }), KEY_MAX);
    // Reads on the same key share its budget.
    expectRateLimited(await busy('GET', '/v1/payments'), KEY_MAX);

    // Another project's key, and this project's live key, each have their own budget.
    const other: Call = api(system.baseUrl, neighbour.testSecretKey);
    expect((await other('POST', '/v1/payments', { amount: 1000 })).status).toBe(201);
    const live = api(system.baseUrl, limited.liveSecretKey);
    expect((await live('GET', '/v1/payments')).status).toBe(200);
  });

  it('creates a refused payment once when the merchant retries after Retry-After with its Idempotency-Key', async () => {
    const merchant = api(system.baseUrl, patient.testSecretKey);
    for (let i = 0; i < KEY_MAX; i += 1) await createPayment(merchant);
    const order = { amount: 7800, reference: 'order-78' };
    const headers = { 'idempotency-key': 'order-78-create' };
    const retryAfter = expectRateLimited(await merchant('POST', '/v1/payments', order, headers), KEY_MAX);

    await sleep(retryAfter * 1000);
    const created = await merchant<{ token: string }>('POST', '/v1/payments', order, headers);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const again = await merchant('POST', '/v1/payments', order, headers);
    expect(again).toMatchObject({ status: 201, body: created.body });
    const found = await merchant<{ data: { token: string }[] }>('GET', '/v1/payments?search=order-78');
    expect(found.body.data.map((p) => p.token)).toEqual([created.body.token]);
  }, 20_000);
});

describe('rate limits on public routes', () => {
  it('limits the hosted checkout session per client IP, not the merchant keys of that IP', async () => {
    const merchant = api(system.baseUrl, neighbour.liveSecretKey);
    const payment = await createPayment(merchant);
    const shopper = api(system.baseUrl);
    const session = `/v1/checkout/sessions/${sessionOf(payment)}`;
    for (let i = 0; i < IP_MAX; i += 1) {
      const read = await shopper('GET', session);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.headers.get('x-ratelimit-remaining')).toBe(String(IP_MAX - 1 - i));
    }
    expectRateLimited(await shopper('GET', session), IP_MAX, 'too_many_requests');
    expectRateLimited(await shopper('GET', `${session}/status`), IP_MAX, 'too_many_requests');
    // The merchant's server on the same address still works: it is counted by its key.
    expect((await merchant('GET', `/v1/payments/${payment.token}`)).status).toBe(200);
  });
});
