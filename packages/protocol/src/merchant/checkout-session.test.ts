import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../zod-errors.js';
import {
  CheckoutSession,
  CheckoutSessionStatus,
  CreateCheckoutSessionBody,
  PayCheckoutSessionBody,
} from './checkout-session.js';

const session = {
  id: 'cs_AbCdEfGhIjKlMnOpQrStUvWx',
  url: 'https://pay.example.com/checkout/cs_AbCdEfGhIjKlMnOpQrStUvWx',
  amount: 5000,
  currency: 'XAF',
  description: '',
  status: 'idle',
  expiresAt: '2025-01-31T12:15:00.000Z',
  createdAt: '2025-01-31T12:00:00.000Z',
  merchantName: 'Shop',
  merchantLogo: null,
  successUrl: 'https://shop.example.com/ok',
  cancelUrl: null,
  paymentMethod: null,
  paymentId: null,
  customer: null,
};

describe('CheckoutSession', () => {
  it('has the 7 states', () => {
    expect(CheckoutSessionStatus.options).toHaveLength(7);
  });

  it('accepts a fresh session and a paid one', () => {
    expect(CheckoutSession.parse(session)).toEqual(session);
    const paid = {
      ...session,
      status: 'success',
      paymentMethod: 'WAVE',
      paymentId: 'p1',
      customer: { email: 'a@b.co', phone: '+221771234567' },
      merchantLogo: 'https://x/logo.png',
    };
    expect(CheckoutSession.parse(paid)).toEqual(paid);
  });

  it.each([
    ['id', 'sess_1'],
    ['status', 'PENDING'],
    ['paymentMethod', 'UNKNOWN'],
    ['amount', 1.5],
    ['description', null],
    ['customer', { email: 'a@b.co' }],
    ['expiresAt', 'soon'],
    ['extra', 1],
  ])('rejects a bad %s', (field, value) => {
    expect(CheckoutSession.safeParse({ ...session, [field]: value }).success).toBe(false);
  });
});

describe('CreateCheckoutSessionBody', () => {
  it('accepts a minimal and a full body', () => {
    expect(CreateCheckoutSessionBody.parse({ amount: 1000 })).toEqual({ amount: 1000, currency: 'XAF' });
    const full = {
      amount: 1000,
      currency: 'XOF',
      description: 'x',
      successUrl: 'https://a.example/ok',
      cancelUrl: 'https://a.example/ko',
      customer: { email: 'a@b.co', phone: '+2250701020304' },
      metadata: { k: 'v' },
    };
    expect(CreateCheckoutSessionBody.parse(full)).toEqual(full);
  });

  it.each([
    [{}, 'amount'],
    [{ amount: 10 }, 'amount'],
    [{ amount: 1000, currency: 'GHS' }, 'currency'],
    [{ amount: 1000, successUrl: 'javascript:alert(1)' }, 'successUrl'],
    [{ amount: 1000, customer: { email: 'bad' } }, 'customer.email'],
    [{ amount: 1000, customer: { name: 'x' } }, 'customer.name'],
  ])('rejects %j', (body, field) => {
    const result = CreateCheckoutSessionBody.safeParse(body);
    expect(fieldErrors(result.error!).map((f) => f.field)).toContain(field);
  });
});

describe('PayCheckoutSessionBody', () => {
  it('accepts the pay body with link extras', () => {
    expect(PayCheckoutSessionBody.parse({ paymentMethod: 'ORANGE_MONEY', phone: '690000001' })).toEqual({
      paymentMethod: 'ORANGE_MONEY',
      phone: '690000001',
    });
    expect(
      PayCheckoutSessionBody.safeParse({
        paymentMethod: 'MTN_MOMO',
        phone: '+237670000001',
        amount: 2500,
        fields: { size: 'M', qty: 2 },
        email: 'a@b.co',
        name: 'Awa',
      }).success,
    ).toBe(true);
  });

  it.each([
    [{ phone: '+237690000001' }, 'paymentMethod'],
    [{ paymentMethod: 'UNKNOWN', phone: '+237690000001' }, 'paymentMethod'],
    [{ paymentMethod: 'WAVE' }, 'phone'],
    [{ paymentMethod: 'WAVE', phone: '  ' }, 'phone'],
    [{ paymentMethod: 'WAVE', phone: '1', amount: 5 }, 'amount'],
    [{ paymentMethod: 'WAVE', phone: '1', email: 'x' }, 'email'],
    [{ paymentMethod: 'WAVE', phone: '1', pin: '1234' }, 'pin'],
  ])('rejects %j', (body, field) => {
    const result = PayCheckoutSessionBody.safeParse(body);
    expect(fieldErrors(result.error!).map((f) => f.field)).toContain(field);
  });
});
