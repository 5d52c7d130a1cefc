import { describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { startSystem } from '../support/system.js';
import { eventually } from '@mmp/platform/testing';
import { api } from '../support/http.js';
import { expectSimpleError, NO_FUNDS, PAYS, type Session, type SessionStatus } from './helpers.js';

const shop = useShop('Checkout Shop');
const { merchant, shopper } = shop;

async function newSession(body: Record<string, unknown> = {}): Promise<Session> {
  const created = await merchant<Session>('POST', '/v1/checkout/sessions', {
    amount: 2500,
    successUrl: 'https://shop.example/ok',
    cancelUrl: 'https://shop.example/ko',
    ...body,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}
const status = (id: string) => shopper<SessionStatus>('GET', `/v1/checkout/sessions/${id}/status`);
const pay = (id: string, body: unknown = PAYS) =>
  shopper<SessionStatus>('POST', `/v1/checkout/sessions/${id}/pay`, body);
const cancel = (id: string) => shopper<SessionStatus>('POST', `/v1/checkout/sessions/${id}/cancel`);
async function until(id: string, state: string) {
  await eventually(async () => (await status(id)).body.status === state, 20_000);
}

describe('POST /v1/checkout/sessions', () => {
  it('creates a session (201) the public reads (200)', async () => {
    const session = await newSession({ description: 'Abonnement' });
    expect(session.id).toMatch(/^cs_[A-Za-z0-9]+$/);
    expect(session).toMatchObject({
      url: `${shop.system.baseUrl}/checkout/${session.id}`,
      amount: 2500,
      status: 'idle',
      paymentId: null,
    });
    const read = await shopper<Session & { merchantName: string }>(
      'GET',
      `/v1/checkout/sessions/${session.id}`,
    );
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: session.id,
      description: 'Abonnement',
      merchantName: 'Checkout Shop',
    });
    const polled = await status(session.id);
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({ id: session.id, status: 'idle', redirectUrl: null });
  });

  it('answers 400 with the documented codes for bad input', async () => {
    const create = (body: unknown) => merchant('POST', '/v1/checkout/sessions', body);
    expectSimpleError(await create({}), 400, 'missing_required_field');
    for (const amount of [50, 5_000_001, 10.5])
      expectSimpleError(await create({ amount }), 400, 'invalid_amount');
    expectSimpleError(await create({ amount: 1000, currency: 'EUR' }), 400, 'invalid_currency');
    expectSimpleError(await create({ amount: 1000, customer: { email: 'nope' } }), 400, 'invalid_email');
    expectSimpleError(await create([1, 2]), 400, 'invalid_request');
    const url = expectSimpleError(
      await create({ amount: 1000, successUrl: 'not a url' }),
      400,
      'validation_error',
    );
    expect(url.errors).toEqual([expect.objectContaining({ field: 'successUrl' })]);
    const unknown = expectSimpleError(await create({ amount: 1000, tip: 5 }), 400, 'validation_error');
    expect(unknown.errors).toEqual([{ field: 'tip', message: 'unknown field' }]);
  });

  it('answers 401 without a valid key and 403 to a publishable or unscoped key', async () => {
    const body = { amount: 1000 };
    expectSimpleError(await shopper('POST', '/v1/checkout/sessions', body), 401, 'invalid_api_key');
    expectSimpleError(
      await api(shop.system.baseUrl, 'svc_test_sk_' + 'x'.repeat(32))('POST', '/v1/checkout/sessions', body),
      401,
      'invalid_api_key',
    );
    expectSimpleError(
      await api(shop.system.baseUrl, shop.project.testPublishableKey)('POST', '/v1/checkout/sessions', body),
      403,
      'insufficient_permissions',
    );
    const { key } = await shop.system.admin<{ key: string }>(
      'POST',
      `/v1/admin/projects/${shop.project.id}/keys`,
      {
        kind: 'secret',
        livemode: false,
        scopes: ['payments:write'],
      },
    );
    expectSimpleError(
      await api(shop.system.baseUrl, key)('POST', '/v1/checkout/sessions', body),
      403,
      'insufficient_permissions',
    );
  });
});

describe('public session operations', () => {
  it('answers 404 for unknown and malformed session ids on every operation', async () => {
    for (const id of ['cs_unknownSession0000000000', 'abc', 'cs_', 'pay_123']) {
      expectSimpleError(await shopper('GET', `/v1/checkout/sessions/${id}`), 404, 'resource_not_found');
      expectSimpleError(await status(id), 404, 'resource_not_found');
      expectSimpleError(await pay(id), 404, 'resource_not_found');
      expectSimpleError(await cancel(id), 404, 'resource_not_found');
    }
  });

  it('pays (200) and refuses paying twice (409) or after success (409)', async () => {
    const session = await newSession();
    const paid = await pay(session.id);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(['processing', 'pending_ussd', 'success']).toContain(paid.body.status);
    expectSimpleError(await pay(session.id), 409, 'invalid_state');
    await until(session.id, 'success');
    expect((await status(session.id)).body).toMatchObject({
      paymentStatus: 'COMPLETED',
      redirectUrl: 'https://shop.example/ok',
    });
    expectSimpleError(await pay(session.id), 409, 'invalid_state');
    expectSimpleError(await cancel(session.id), 409, 'invalid_state');
  });

  it('refuses a bad pay body: 400 invalid_phone, validation_error or missing field', async () => {
    const session = await newSession();
    const wrongOperator = expectSimpleError(
      await pay(session.id, { paymentMethod: 'MTN_MOMO', phone: '+237690000001' }),
      400,
      'invalid_phone',
    );
    expect(wrongOperator.errors).toEqual([expect.objectContaining({ field: 'phone' })]);
    for (const [body, status, code] of [
      [{ paymentMethod: 'ORANGE_MONEY', phone: '12' }, 400, 'invalid_phone'],
      [{ paymentMethod: 'ORANGE_MONEY', phone: '+2250700000000' }, 400, 'invalid_phone'],
      [{ paymentMethod: 'CASH', phone: '+237690000001' }, 400, 'validation_error'],
      [{ paymentMethod: 'WAVE', phone: '+237690000001' }, 400, 'validation_error'],
    ] as const)
      expectSimpleError(await pay(session.id, body), status, code);
    expectSimpleError(await pay(session.id, { ...PAYS, tip: 1 }), 400, 'validation_error');
    expectSimpleError(
      await pay(session.id, { paymentMethod: 'ORANGE_MONEY' }),
      400,
      'missing_required_field',
    );
    // None of these started anything: the session still pays.
    expect((await status(session.id)).body.status).toBe('idle');
    expect((await pay(session.id)).status).toBe(200);
  });

  it('cancels an open session (200), then refuses paying it (400 payment_cancelled)', async () => {
    const session = await newSession();
    const cancelled = await cancel(session.id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', redirectUrl: 'https://shop.example/ko' });
    expectSimpleError(await pay(session.id), 400, 'payment_cancelled');
    expectSimpleError(await cancel(session.id), 400, 'payment_cancelled');
  });

  it('ends on failed with the payer error, and refuses paying again (409)', async () => {
    const session = await newSession();
    expect((await pay(session.id, NO_FUNDS)).status).toBe(200);
    await until(session.id, 'failed');
    expect((await status(session.id)).body.failureCode).toBe('insufficient_balance');
    expectSimpleError(await pay(session.id), 409, 'invalid_state');
  });

  it('refuses paying an expired session with 400 payment_expired', async () => {
    const quick = await startSystem({ env: { SESSION_TTL_SECONDS: '1' } });
    try {
      const keys = await quick.createProject('Quick Shop');
      const created = await api(quick.baseUrl, keys.testSecretKey)<Session>('POST', '/v1/checkout/sessions', {
        amount: 1000,
      });
      expect(created.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const body = expectSimpleError(
        await api(quick.baseUrl)('POST', `/v1/checkout/sessions/${created.body.id}/pay`, PAYS),
        400,
        'payment_expired',
      );
      expect(body.message).toMatch(/expired/);
    } finally {
      await quick.stop();
    }
  });
});
