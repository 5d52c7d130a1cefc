import { describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { api } from '../support/http.js';
import { expectSimpleError } from './helpers.js';
import { SPEC_PAYMENT_FIELDS } from '@mmp/platform/testing';

const shop = useShop('Create Shop');

const create = (body: unknown, key = shop.project.testSecretKey) =>
  api(shop.system.baseUrl, key)('POST', '/v1/payments', body);

describe('POST /v1/payments', () => {
  it('answers 201 with exactly the create-response fields', async () => {
    const created = await create({
      amount: 5000,
      description: 'T-shirt',
      reference: 'order-1',
      metadata: { cart: 'c1' },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...SPEC_PAYMENT_FIELDS.created].sort());
    expect(created.body).toMatchObject({
      projectId: shop.project.id,
      amount: 5000,
      currency: 'XAF',
      status: 'PENDING',
      description: 'T-shirt',
      livemode: false,
      completedAt: null,
    });
    expect(created.body.token).toMatch(/^pay_/);
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(String(created.body.createdAt)).toISOString()).toBe(created.body.createdAt);
    const paymentUrl = new URL(String(created.body.paymentUrl));
    expect(paymentUrl.origin).toBe(shop.system.baseUrl);
    expect(paymentUrl.pathname).toMatch(/\/cs_/);
  });

  it('takes XOF, every optional field, and the boundary amounts 100 and 5,000,000', async () => {
    const full = await create({
      amount: 100,
      currency: 'XOF',
      description: 'Everything',
      returnUrl: 'https://shop.example/ok',
      cancelUrl: 'https://shop.example/cancel',
      userId: '6f1c2b0e-3a4d-4e5f-8a9b-0c1d2e3f4a5b',
      customerId: 'cust-1',
      customer: { email: 'awa@example.cm', phone: '+237690000001', name: 'Awa' },
      metadata: { orderId: 42 },
    });
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({ amount: 100, currency: 'XOF' });
    expect((await create({ amount: 5_000_000 })).status).toBe(201);
  });

  it('marks payments made with the live key as livemode', async () => {
    const live = await create({ amount: 1000 }, shop.project.liveSecretKey);
    expect(live.status).toBe(201);
    expect(live.body.livemode).toBe(true);
  });

  it('refuses amounts outside 100 to 5,000,000 with invalid_amount naming the limits', async () => {
    for (const amount of [99, 0, -5, 5_000_001, '5000', 100.5, null]) {
      const body = expectSimpleError(await create({ amount }), 400, 'invalid_amount');
      expect(body.message).toContain('100');
      expect(body.message).toContain('5000000');
      expect(body.error).toBe('Bad Request');
    }
  });

  it('refuses a missing amount with missing_required_field', async () => {
    const body = expectSimpleError(await create({ description: 'no amount' }), 400, 'missing_required_field');
    expect(body.message).toContain('amount');
    expect(body.errors).toEqual([expect.objectContaining({ field: 'amount' })]);
  });

  it('refuses a currency other than XAF or XOF with invalid_currency', async () => {
    for (const currency of ['EUR', 'xaf', 12]) {
      const body = expectSimpleError(await create({ amount: 1000, currency }), 400, 'invalid_currency');
      expect(body.message).toMatch(/XAF.*XOF/);
    }
  });

  it('refuses a malformed customer e-mail with invalid_email', async () => {
    const body = expectSimpleError(
      await create({ amount: 1000, customer: { email: 'not-an-email' } }),
      400,
      'invalid_email',
    );
    expect(body.errors).toEqual([expect.objectContaining({ field: 'customer.email' })]);
  });

  it('refuses unknown fields and bad URLs, naming each field', async () => {
    const unknown = expectSimpleError(await create({ amount: 1000, colour: 'red' }), 400, 'validation_error');
    expect(JSON.stringify(unknown.errors)).toContain('colour');
    const unknownNested = expectSimpleError(
      await create({ amount: 1000, customer: { age: 3 } }),
      400,
      'validation_error',
    );
    expect(JSON.stringify(unknownNested.errors)).toContain('age');
    const urls = expectSimpleError(
      await create({ amount: 1000, returnUrl: 'not a url', cancelUrl: 'ftp://shop.example/x' }),
      400,
      'validation_error',
    );
    expect((urls.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'cancelUrl',
      'returnUrl',
    ]);
    expectSimpleError(await create({ amount: 1000, userId: 'not-a-uuid' }), 400, 'validation_error');
  });

  it('refuses a body that is not a JSON object', async () => {
    expectSimpleError(await create([1, 2]), 400, 'invalid_request');
    expectSimpleError(await create('amount=1000'), 400, 'invalid_request');
  });

  it('keeps references unique per project and environment', async () => {
    expect((await create({ amount: 1000, reference: 'inv-7' })).status).toBe(201);
    const again = expectSimpleError(
      await create({ amount: 2000, reference: 'inv-7' }),
      409,
      'duplicate_transaction',
    );
    expect(again.message).toContain('inv-7');
    expect(again.error).toBe('Conflict');
    // The same reference in live, and in another project, is another payment.
    expect((await create({ amount: 1000, reference: 'inv-7' }, shop.project.liveSecretKey)).status).toBe(201);
    expectSimpleError(
      await create({ amount: 1000, reference: 'inv-7' }, shop.project.liveSecretKey),
      409,
      'duplicate_transaction',
    );
    const other = await shop.system.createProject('Other Shop');
    expect((await create({ amount: 1000, reference: 'inv-7' }, other.testSecretKey)).status).toBe(201);
  });

  it('lets exactly one of parallel creates with one reference through', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => create({ amount: 1000, reference: 'race-1' })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 201))
      expectSimpleError(answer, 409, 'duplicate_transaction');
  });
});
