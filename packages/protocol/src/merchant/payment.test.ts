import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../zod-errors.js';
import {
  CreatePaymentBody,
  Payment,
  PaymentCreateResponse,
  PaymentList,
  PaymentListItem,
  PaymentMethod,
  PaymentStatus,
} from './payment.js';

const ID = '3f1c2a7e-9b1d-4c8e-8f2a-1b2c3d4e5f60';
const PROJECT = '6a2b3c4d-5e6f-4a1b-9c2d-3e4f5a6b7c8d';
const TOKEN = 'pay_AbCdEfGhIjKlMnOpQrStUvWx';

const createResponse = {
  id: ID,
  token: TOKEN,
  projectId: PROJECT,
  amount: 5000,
  currency: 'XAF',
  status: 'PENDING',
  paymentUrl: 'https://pay.example.com/checkout/cs_AbCdEfGhIjKlMnOpQrStUvWx',
  description: 'Order 42',
  livemode: false,
  createdAt: '2025-01-31T12:00:00.000Z',
  completedAt: null,
};

const fullPayment = {
  ...createResponse,
  reference: 'ORDER-42',
  paymentMethod: 'ORANGE_MONEY',
  payerPhone: '+237690000001',
  payerName: 'Awa',
  payerEmail: 'awa@example.com',
  failureCode: null,
  failureMessage: null,
};

describe('enums', () => {
  it('PaymentStatus has the 8 states', () => {
    expect(PaymentStatus.options).toHaveLength(8);
    expect(PaymentStatus.safeParse('SUCCESS').success).toBe(false);
  });

  it('PaymentMethod has the networks and UNKNOWN', () => {
    expect(PaymentMethod.options).toEqual(['ORANGE_MONEY', 'MTN_MOMO', 'WAVE', 'MOOV_MONEY', 'UNKNOWN']);
    expect(PaymentMethod.safeParse('PAYPAL').success).toBe(false);
  });
});

describe('CreatePaymentBody', () => {
  it('accepts the minimal body and defaults currency to XAF', () => {
    expect(CreatePaymentBody.parse({ amount: 100 })).toEqual({ amount: 100, currency: 'XAF' });
  });

  it('accepts every field', () => {
    const body = {
      amount: 5_000_000,
      currency: 'XOF',
      description: 'd'.repeat(500),
      returnUrl: 'https://shop.example.com/ok',
      cancelUrl: 'http://localhost:3000/cancel',
      userId: ID,
      reference: 'ORDER-42',
      customerId: 'cust_1',
      customer: { email: 'awa@example.com', phone: '+237690000001', name: 'Awa' },
      metadata: { orderId: 42, gift: true, note: 'x' },
    };
    expect(CreatePaymentBody.parse(body)).toEqual(body);
  });

  it.each([
    [{}, 'amount', /amount is required/],
    [{ amount: 99 }, 'amount', /between 100 and 5000000/],
    [{ amount: 5_000_001 }, 'amount', /between 100 and 5000000/],
    [{ amount: 100.5 }, 'amount', /between 100 and 5000000/],
    [{ amount: '5000' }, 'amount', /between 100 and 5000000/],
    [{ amount: 100, currency: 'EUR' }, 'currency', /XAF or XOF/],
    [{ amount: 100, description: 'd'.repeat(501) }, 'description', /500/],
    [{ amount: 100, returnUrl: 'ftp://x.example.com' }, 'returnUrl', /http/],
    [{ amount: 100, cancelUrl: 'not a url' }, 'cancelUrl', /http/],
    [{ amount: 100, userId: 'u1' }, 'userId', /uuid/],
    [{ amount: 100, reference: '' }, 'reference', /./],
    [{ amount: 100, reference: 'r'.repeat(101) }, 'reference', /100/],
    [{ amount: 100, customerId: '' }, 'customerId', /./],
    [{ amount: 100, customer: { email: 'nope' } }, 'customer.email', /e-mail/],
    [{ amount: 100, customer: { age: 3 } }, 'customer.age', /unknown field/],
    [{ amount: 100, metadata: { a: { nested: true } } }, 'metadata.a', /./],
    [
      { amount: 100, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      'metadata',
      /50 keys/,
    ],
    [{ amount: 100, extra: 1 }, 'extra', /unknown field/],
  ])('rejects %j on %s', (body, field, message) => {
    const result = CreatePaymentBody.safeParse(body);
    expect(result.success).toBe(false);
    const entry = fieldErrors(result.error!).find((f) => f.field === field);
    expect(entry?.message).toMatch(message);
  });
});

describe('payment responses', () => {
  it('PaymentCreateResponse has exactly the create fields', () => {
    expect(PaymentCreateResponse.parse(createResponse)).toEqual(createResponse);
    expect(PaymentCreateResponse.safeParse({ ...createResponse, reference: null }).success).toBe(false);
    const { completedAt: _c, ...missing } = createResponse;
    expect(PaymentCreateResponse.safeParse(missing).success).toBe(false);
  });

  it('Payment has the full field set', () => {
    expect(Payment.parse(fullPayment)).toEqual(fullPayment);
    expect(
      Payment.parse({
        ...fullPayment,
        paymentUrl: null,
        payerPhone: null,
        payerName: null,
        payerEmail: null,
        reference: null,
        description: null,
      }),
    ).toBeTruthy();
    expect(
      Payment.safeParse({ ...fullPayment, completedAt: '2025-01-31T12:05:00+01:00', status: 'COMPLETED' })
        .success,
    ).toBe(true);
  });

  it('Payment accepts expansions when asked for', () => {
    const expanded = {
      ...fullPayment,
      project: { id: PROJECT, name: 'Shop' },
      refunds: [],
      events: [
        { id: 'evt_1', type: 'payment.created', createdAt: createResponse.createdAt },
        {
          id: 'evt_2',
          type: 'routing.decided',
          createdAt: createResponse.createdAt,
          decision: 'routed',
          railId: 'rail_1',
          providerId: 'prov_1',
          reason: 'certified, priority 0',
          skipped: [{ railId: 'rail_2', reason: 'breaker open' }],
        },
        {
          id: 'evt_3',
          type: 'payment.failed',
          createdAt: createResponse.createdAt,
          failureCode: 'insufficient_balance',
          failureMessage: "The payer's wallet balance is too low.",
        },
      ],
      customer: null,
    };
    expect(Payment.safeParse(expanded).success).toBe(true);
  });

  it.each([
    ['id', 'not-a-uuid'],
    ['token', 'tok_123'],
    ['amount', 50.5],
    ['currency', 'EUR'],
    ['status', 'DONE'],
    ['paymentMethod', 'CASH'],
    ['createdAt', '31/01/2025'],
    ['livemode', 'false'],
    ['payerPhone', undefined],
  ])('Payment rejects a bad %s', (field, value) => {
    expect(Payment.safeParse({ ...fullPayment, [field]: value }).success).toBe(false);
  });

  it('PaymentListItem and PaymentList', () => {
    const item = {
      id: ID,
      token: TOKEN,
      amount: 5000,
      currency: 'XAF',
      status: 'COMPLETED',
      paymentMethod: 'MTN_MOMO',
      createdAt: createResponse.createdAt,
      completedAt: createResponse.createdAt,
      failureCode: null,
      failureMessage: null,
    };
    expect(PaymentListItem.parse(item)).toEqual(item);
    expect(PaymentListItem.safeParse({ ...item, description: 'x' }).success).toBe(false);
    expect(
      PaymentList.parse({ data: [item], has_more: false, meta: { limit: 20, total: 1, page: 1 } }),
    ).toBeTruthy();
    expect(PaymentList.parse({ data: [], has_more: true, meta: { limit: 20, total: 0 } })).toBeTruthy();
    expect(PaymentList.safeParse({ data: [], meta: { limit: 20, total: 0 } }).success).toBe(false);
  });
});
