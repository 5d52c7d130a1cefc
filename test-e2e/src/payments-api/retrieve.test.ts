import { beforeAll, describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { api } from '../support/http.js';
import { createPayment, expectSimpleError, payAndSettle, type CreatedPayment } from './helpers.js';
import { SPEC_PAYMENT_FIELDS } from '@mmp/platform/testing';

const FULL_FIELDS = [...SPEC_PAYMENT_FIELDS.full].sort();

const shop = useShop('Retrieve Shop');
const { merchant } = shop;
let pending: CreatedPayment;
let completed: CreatedPayment;

beforeAll(async () => {
  pending = await createPayment(merchant, {
    amount: 4200,
    reference: 'ret-1',
    customerId: 'cust-42',
    customer: { email: 'awa@example.cm', phone: '+237690000009', name: 'Awa Ndiaye' },
  });
  completed = await createPayment(merchant, { amount: 7000, reference: 'ret-2' });
  await payAndSettle(shop.system.baseUrl, merchant, completed, '+237690000001', 'COMPLETED');
}, 60_000);

type FullPayment = Record<string, unknown> & { events?: { id: string; type: string; createdAt: string }[] };

describe('GET /v1/payments/{token}', () => {
  it('returns the full field set', async () => {
    const got = await merchant<FullPayment>('GET', `/v1/payments/${pending.token}`);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(FULL_FIELDS);
    expect(got.body).toEqual({
      ...pending,
      reference: 'ret-1',
      paymentMethod: 'UNKNOWN',
      payerPhone: '+237690000009',
      payerName: 'Awa Ndiaye',
      payerEmail: 'awa@example.cm',
      failureCode: null,
      failureMessage: null,
    });
  });

  it('shows what the payer did on a completed payment', async () => {
    const got = await merchant<FullPayment>('GET', `/v1/payments/${completed.token}`);
    expect(got.body).toMatchObject({
      status: 'COMPLETED',
      paymentMethod: 'ORANGE_MONEY',
      payerPhone: '+237690000001',
    });
    expect(Date.parse(String(got.body.completedAt))).toBeGreaterThanOrEqual(Date.parse(completed.createdAt));
  });

  it('expands customer, project, refunds and events with expand[] or expand', async () => {
    const all = await merchant<FullPayment>(
      'GET',
      `/v1/payments/${completed.token}?expand[]=events&expand[]=customer&expand[]=project&expand[]=refunds`,
    );
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      customer: null,
      project: { id: shop.project.id, name: 'Retrieve Shop' },
      refunds: [],
    });
    expect(all.body.events!.map((e) => e.type)).toEqual(
      expect.arrayContaining(['payment.created', 'payment.completed']),
    );
    expect(all.body.events![0]!.type).toBe('payment.created');

    const customer = await merchant<FullPayment>('GET', `/v1/payments/${pending.token}?expand=customer`);
    expect(customer.body.customer).toEqual({
      id: 'cust-42',
      email: 'awa@example.cm',
      phone: '+237690000009',
      name: 'Awa Ndiaye',
    });
    expect(customer.body).not.toHaveProperty('events');
    const both = await merchant<FullPayment>(
      'GET',
      `/v1/payments/${pending.token}?expand=events&expand[]=project`,
    );
    expect(both.body.events).toHaveLength(1);
    expect(both.body.project).toMatchObject({ id: shop.project.id });
  });

  it('refuses an unknown expansion or query parameter with 400', async () => {
    expectSimpleError(
      await merchant('GET', `/v1/payments/${pending.token}?expand[]=wallet`),
      400,
      'invalid_request',
    );
    expectSimpleError(
      await merchant('GET', `/v1/payments/${pending.token}?colour=red`),
      400,
      'invalid_request',
    );
  });

  it('answers 404 for an unknown token, another project, or the other environment', async () => {
    expectSimpleError(
      await merchant('GET', '/v1/payments/pay_doesnotexist000000000000'),
      404,
      'resource_not_found',
    );
    const other = await shop.system.createProject('Nosy Shop');
    const nosy = api(shop.system.baseUrl, other.testSecretKey);
    expectSimpleError(await nosy('GET', `/v1/payments/${pending.token}`), 404, 'resource_not_found');
    expectSimpleError(await nosy('GET', `/v1/payments/${pending.token}/verify`), 404, 'resource_not_found');
    expectSimpleError(await nosy('POST', `/v1/payments/${pending.token}/cancel`), 404, 'resource_not_found');
    const live = api(shop.system.baseUrl, shop.project.liveSecretKey);
    const notFound = expectSimpleError(
      await live('GET', `/v1/payments/${pending.token}`),
      404,
      'resource_not_found',
    );
    expect(notFound.error).toBe('Not Found');
    expectSimpleError(await live('GET', `/v1/payments/${pending.token}/verify`), 404, 'resource_not_found');
  });
});

describe('GET /v1/payments/{token}/verify', () => {
  it('returns the full payment as the provider route knows it', async () => {
    const done = await merchant<FullPayment>('GET', `/v1/payments/${completed.token}/verify`);
    expect(done.status).toBe(200);
    expect(Object.keys(done.body).sort()).toEqual(FULL_FIELDS);
    expect(done.body.status).toBe('COMPLETED');
    const open = await merchant<FullPayment>('GET', `/v1/payments/${pending.token}/verify`);
    expect(open.body).toMatchObject({ status: 'PENDING', token: pending.token });
  });

  it('answers 404 for an unknown token', async () => {
    expectSimpleError(await merchant('GET', '/v1/payments/pay_unknown/verify'), 404, 'resource_not_found');
  });
});

describe('POST /v1/payments/{token}/cancel', () => {
  it('cancels a PENDING payment and says so on retrieve', async () => {
    const payment = await createPayment(merchant);
    const cancelled = await merchant<FullPayment>('POST', `/v1/payments/${payment.token}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(Object.keys(cancelled.body).sort()).toEqual(FULL_FIELDS);
    expect(cancelled.body).toMatchObject({
      status: 'CANCELLED',
      failureCode: 'payment_cancelled',
      failureMessage: 'Cancelled by the merchant.',
    });
    const events = await merchant<FullPayment>('GET', `/v1/payments/${payment.token}?expand[]=events`);
    expect(events.body.status).toBe('CANCELLED');
    expect(events.body.events!.map((e) => e.type)).toEqual(['payment.created', 'payment.cancelled']);
  });

  it('answers 409 invalid_state on a completed or already cancelled payment', async () => {
    const onCompleted = expectSimpleError(
      await merchant('POST', `/v1/payments/${completed.token}/cancel`),
      409,
      'invalid_state',
    );
    expect(onCompleted.message).toMatch(/PENDING/);
    const payment = await createPayment(merchant);
    expect((await merchant('POST', `/v1/payments/${payment.token}/cancel`)).status).toBe(200);
    expectSimpleError(await merchant('POST', `/v1/payments/${payment.token}/cancel`), 409, 'invalid_state');
    expect((await merchant<FullPayment>('GET', `/v1/payments/${completed.token}`)).body.status).toBe(
      'COMPLETED',
    );
  });

  it('answers 404 for an unknown token', async () => {
    expectSimpleError(await merchant('POST', '/v1/payments/pay_unknown/cancel'), 404, 'resource_not_found');
  });
});

describe('GET /v1/payments/user/{userId}', () => {
  const userId = '0b7e9a52-8c1f-4d2e-9f3a-5b6c7d8e9f01';

  it("lists a user's payments newest first with the full field set, limit capped at 100", async () => {
    const first = await createPayment(merchant, { userId, amount: 1100 });
    const second = await createPayment(merchant, { userId: userId.toUpperCase(), amount: 1200 });
    await createPayment(api(shop.system.baseUrl, shop.project.liveSecretKey), { userId, amount: 1300 });
    const list = await merchant<FullPayment[]>('GET', `/v1/payments/user/${userId}`);
    expect(list.status).toBe(200);
    expect(list.body.map((p) => p.token)).toEqual([second.token, first.token]);
    expect(Object.keys(list.body[0]!).sort()).toEqual(FULL_FIELDS);
    const one = await merchant<FullPayment[]>('GET', `/v1/payments/user/${userId}?limit=1`);
    expect(one.body.map((p) => p.token)).toEqual([second.token]);
    expect(
      (await merchant<FullPayment[]>('GET', '/v1/payments/user/6a0e1f7c-0000-4000-8000-000000000000')).body,
    ).toEqual([]);
  });

  it('refuses a userId that is not a uuid and a limit outside 1 to 100', async () => {
    expectSimpleError(await merchant('GET', '/v1/payments/user/not-a-uuid'), 400, 'invalid_request');
    expectSimpleError(await merchant('GET', `/v1/payments/user/${userId}?limit=0`), 400, 'invalid_request');
    expectSimpleError(await merchant('GET', `/v1/payments/user/${userId}?limit=101`), 400, 'invalid_request');
  });
});
