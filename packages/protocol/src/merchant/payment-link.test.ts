import { describe, expect, it } from 'vitest';
import { refusedFields } from '../test-support/refused-fields.js';
import { fieldErrors } from '../zod-errors.js';
import {
  CreatePaymentLinkBody,
  CustomField,
  PaymentLink,
  PublicPaymentLink,
  UpdatePaymentLinkBody,
} from './payment-link.js';

const future = new Date(Date.now() + 86_400_000).toISOString();
const past = new Date(Date.now() - 86_400_000).toISOString();

const link = {
  id: '3f1c2a7e-9b1d-4c8e-8f2a-1b2c3d4e5f60',
  shortCode: 'aB3dE5gH',
  url: 'https://pay.example.com/pay/aB3dE5gH',
  name: 'T-shirt',
  description: null,
  amount: 5000,
  currency: 'XAF',
  minAmount: null,
  maxAmount: null,
  status: 'ACTIVE',
  collectPhone: true,
  collectEmail: false,
  collectName: false,
  customFields: [{ key: 'size', label: 'Size', type: 'select', required: true, options: ['S', 'M', 'L'] }],
  maxUses: null,
  usageCount: 0,
  expiresAt: null,
  livemode: false,
  createdAt: '2025-01-31T12:00:00.000Z',
  updatedAt: '2025-01-31T12:00:00.000Z',
};

describe('CustomField', () => {
  it('accepts each type', () => {
    for (const type of ['text', 'email', 'phone', 'number'] as const)
      expect(CustomField.parse({ key: 'a_1', label: 'A', type, required: false })).toBeTruthy();
    expect(CustomField.parse({ key: 'size', label: 'Size', type: 'select', options: ['S'] })).toMatchObject({
      required: false,
    });
  });

  it.each([
    [{ key: 'Size', label: 'x', type: 'text' }, 'key'],
    [{ key: '1a', label: 'x', type: 'text' }, 'key'],
    [{ key: 'a'.repeat(41), label: 'x', type: 'text' }, 'key'],
    [{ key: 'a', label: '', type: 'text' }, 'label'],
    [{ key: 'a', label: 'x'.repeat(81), type: 'text' }, 'label'],
    [{ key: 'a', label: 'x', type: 'date' }, 'type'],
    [{ key: 'a', label: 'x', type: 'select' }, 'options'],
    [{ key: 'a', label: 'x', type: 'text', options: ['a'] }, 'options'],
    [{ key: 'a', label: 'x', type: 'text', hint: 'h' }, 'hint'],
  ])('rejects %j', (field, name) => {
    expect(refusedFields(CustomField.safeParse(field))).toContain(name);
  });
});

describe('CreatePaymentLinkBody', () => {
  it('needs only a name and fills defaults (variable amount)', () => {
    expect(CreatePaymentLinkBody.parse({ name: 'Donation' })).toEqual({
      name: 'Donation',
      currency: 'XAF',
      collectPhone: false,
      collectEmail: false,
      collectName: false,
      customFields: [],
    });
  });

  it('accepts a full fixed-amount link and a bounded variable one', () => {
    expect(
      CreatePaymentLinkBody.safeParse({
        name: 'T',
        description: 'd',
        amount: 5000,
        currency: 'XOF',
        collectEmail: true,
        customFields: link.customFields,
        maxUses: 10,
        expiresAt: future,
      }).success,
    ).toBe(true);
    expect(
      CreatePaymentLinkBody.safeParse({
        name: 'Gift',
        amount: null,
        minAmount: 100,
        maxAmount: 5_000_000,
        maxUses: null,
        expiresAt: null,
      }).success,
    ).toBe(true);
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x', amount: 50 }, 'amount'],
    [{ name: 'x', currency: 'USD' }, 'currency'],
    [{ name: 'x', minAmount: 99 }, 'minAmount'],
    [{ name: 'x', maxAmount: 5_000_001 }, 'maxAmount'],
    [{ name: 'x', minAmount: 1000, maxAmount: 500 }, 'maxAmount'],
    [{ name: 'x', amount: 1000, minAmount: 500 }, 'minAmount'],
    [{ name: 'x', collectPhone: 'yes' }, 'collectPhone'],
    [
      {
        name: 'x',
        customFields: Array.from({ length: 11 }, (_, i) => ({
          key: `k${i}`,
          label: 'l',
          type: 'text',
          required: false,
        })),
      },
      'customFields',
    ],
    [
      {
        name: 'x',
        customFields: [
          { key: 'a', label: 'l', type: 'text' },
          { key: 'a', label: 'm', type: 'text' },
        ],
      },
      'customFields',
    ],
    [{ name: 'x', maxUses: 0 }, 'maxUses'],
    [{ name: 'x', expiresAt: past }, 'expiresAt'],
    [{ name: 'x', expiresAt: 'tomorrow' }, 'expiresAt'],
    [{ name: 'x', status: 'ACTIVE' }, 'status'],
  ])('rejects %j naming %s', (body, field) => {
    expect(refusedFields(CreatePaymentLinkBody.safeParse(body))).toContain(field);
  });

  it('says name is required', () => {
    expect(fieldErrors(CreatePaymentLinkBody.safeParse({}).error!)).toEqual([
      { field: 'name', message: 'name is required' },
    ]);
  });
});

describe('UpdatePaymentLinkBody', () => {
  it('is partial, adds no defaults, and takes status', () => {
    expect(UpdatePaymentLinkBody.parse({ status: 'INACTIVE' })).toEqual({ status: 'INACTIVE' });
    expect(UpdatePaymentLinkBody.parse({ name: 'New', maxUses: null })).toEqual({
      name: 'New',
      maxUses: null,
    });
  });

  it.each([
    [{}, '(root)'],
    [{ status: 'EXPIRED' }, 'status'],
    [{ minAmount: 900, maxAmount: 800 }, 'maxAmount'],
    [{ shortCode: 'abcdefgh' }, 'shortCode'],
  ])('rejects %j', (body, field) => {
    expect(refusedFields(UpdatePaymentLinkBody.safeParse(body))).toContain(field);
  });
});

describe('PaymentLink and PublicPaymentLink', () => {
  it('accept the spec fields', () => {
    expect(PaymentLink.parse(link)).toEqual(link);
    const pub = {
      ...link,
      merchantName: 'Shop',
      merchantLogo: null,
      projectId: '6a2b3c4d-5e6f-4a1b-9c2d-3e4f5a6b7c8d',
    };
    expect(PublicPaymentLink.parse(pub)).toEqual(pub);
  });

  it('keep public-only fields off the merchant view', () => {
    expect(PaymentLink.safeParse({ ...link, merchantName: 'Shop' }).success).toBe(false);
    expect(PublicPaymentLink.safeParse(link).success).toBe(false);
  });

  it.each([
    ['shortCode', 'abc'],
    ['status', 'PAUSED'],
    ['usageCount', -1],
    ['amount', '5000'],
    ['url', 'not a url'],
    ['expiresAt', 'never'],
  ])('reject a bad %s', (field, value) => {
    expect(PaymentLink.safeParse({ ...link, [field]: value }).success).toBe(false);
  });
});
