import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type ProjectKeys, type RunningSystem } from '../support/system.js';
import { api } from '../support/http.js';
import { expectSimpleError, type Call } from './helpers.js';

/** Creating a payment needs its hosted page first: with links-checkout down, nothing is stored. */

let system: RunningSystem;
let project: ProjectKeys;
let merchant: Call;

beforeAll(async () => {
  system = await startSystem({ external: ['links-checkout'] });
  project = await system.createProject('No Checkout Shop');
  merchant = api(system.baseUrl, project.testSecretKey);
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('POST /v1/payments while links-checkout is down', () => {
  it('answers 503 service_unavailable in the simple form and stores nothing', async () => {
    const body = { amount: 2500, reference: 'ORDER-503', description: 'Order' };
    const refused = expectSimpleError(
      await merchant('POST', '/v1/payments', body),
      503,
      'service_unavailable',
    );
    expect(refused.message).toBeTruthy();
    // A retry with an Idempotency-Key is not answered from a stored failure either.
    const key = { 'idempotency-key': 'order-503-attempt' };
    expectSimpleError(await merchant('POST', '/v1/payments', body, key), 503, 'service_unavailable');
    expectSimpleError(await merchant('POST', '/v1/payments', body, key), 503, 'service_unavailable');
    const list = await merchant<{ data: unknown[]; meta: { total: number } }>('GET', '/v1/payments');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.total).toBe(0);

    // Once links-checkout is back, the same payment is made: neither the reference nor the
    // Idempotency-Key was taken by the failed attempts.
    const checkout = system.spawnService('links-checkout');
    await checkout.waitReady();
    const created = await merchant<{ token: string; paymentUrl: string }>('POST', '/v1/payments', body, key);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.paymentUrl).toMatch(/\/checkout\/cs_/);
  });
});
