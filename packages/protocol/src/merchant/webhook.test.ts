import { describe, expect, it } from 'vitest';
import {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  subscribesTo,
} from './webhook-endpoint.js';
import { MerchantWebhookEvent, MerchantWebhookEventType } from './webhook-event.js';

const event = {
  id: 'evt_AbCdEfGhIjKlMnOpQrStUvWx',
  type: 'transaction.completed',
  createdAt: '2025-01-31T12:00:00.000Z',
  livemode: false,
  data: {
    token: 'pay_AbCdEfGhIjKlMnOpQrStUvWx',
    amount: 5000,
    currency: 'XAF',
    status: 'COMPLETED',
    reference: 'ORDER-42',
    paymentMethod: 'ORANGE_MONEY',
    payerPhone: '+237690000001',
    completedAt: '2025-01-31T12:00:00.000Z',
    metadata: {},
    failureCode: null,
    failureMessage: null,
  },
};

const endpoint = {
  id: '3f1c2a7e-9b1d-4c8e-8f2a-1b2c3d4e5f60',
  url: 'https://shop.example.com/hooks',
  description: null,
  enabledEvents: ['*'],
  livemode: true,
  status: 'enabled',
  secretHint: 'x9Zq',
  createdAt: '2025-01-31T12:00:00.000Z',
};

describe('MerchantWebhookEvent', () => {
  it('has the 5 transaction event types and the 2 payout ones', () => {
    const types = MerchantWebhookEventType.options;
    expect(types.filter((type) => type.startsWith('transaction.'))).toHaveLength(5);
    expect(types.filter((type) => type.startsWith('payout.'))).toHaveLength(2);
  });

  it('accepts an event', () => {
    expect(MerchantWebhookEvent.parse(event)).toEqual(event);
  });

  it.each([
    ['id', 'ev_1'],
    ['type', 'payment.completed'],
    ['createdAt', 'now'],
    ['livemode', undefined],
    ['data', { token: 'pay_AbCdEfGhIjKlMnOpQrStUvWx', amount: 5000, currency: 'XAF', status: 'COMPLETED' }],
  ])('rejects a bad %s', (field, value) => {
    expect(MerchantWebhookEvent.safeParse({ ...event, [field]: value }).success).toBe(false);
  });
});

describe('WebhookEndpoint', () => {
  it('accepts the resource and the once-only secret form', () => {
    expect(WebhookEndpoint.parse(endpoint)).toEqual(endpoint);
    const { secretHint: _s, ...noHint } = endpoint;
    expect(
      WebhookEndpoint.parse({ ...noHint, enabledEvents: ['transaction.failed'], status: 'disabled' }),
    ).toBeTruthy();
    expect(
      WebhookEndpointWithSecret.safeParse({ ...endpoint, secret: 'whsec_' + 'a'.repeat(32) }).success,
    ).toBe(true);
    expect(WebhookEndpoint.safeParse({ ...endpoint, secret: 'whsec_' + 'a'.repeat(32) }).success).toBe(false);
  });

  it('create body: url required, events default to all', () => {
    expect(CreateWebhookEndpointBody.parse({ url: 'https://a.example/h' })).toEqual({
      url: 'https://a.example/h',
      enabledEvents: ['*'],
    });
    expect(
      CreateWebhookEndpointBody.parse({
        url: 'https://a.example/h',
        enabledEvents: ['transaction.completed', 'transaction.refunded'],
        description: 'main',
      }),
    ).toBeTruthy();
  });

  it.each([
    [{}],
    [{ url: 'ftp://a.example/h' }],
    [{ url: 'https://a.example/h', enabledEvents: [] }],
    [{ url: 'https://a.example/h', enabledEvents: ['*', 'transaction.failed'] }],
    [{ url: 'https://a.example/h', enabledEvents: ['transaction.unknown'] }],
    [{ url: 'https://a.example/h', secret: 'x' }],
  ])('create body rejects %j', (body) => {
    expect(CreateWebhookEndpointBody.safeParse(body).success).toBe(false);
  });

  it('update body is partial but not empty', () => {
    expect(UpdateWebhookEndpointBody.parse({ status: 'disabled' })).toEqual({ status: 'disabled' });
    expect(UpdateWebhookEndpointBody.safeParse({}).success).toBe(false);
    expect(UpdateWebhookEndpointBody.safeParse({ status: 'paused' }).success).toBe(false);
  });

  it('subscribesTo', () => {
    expect(subscribesTo(['*'], 'transaction.failed')).toBe(true);
    expect(subscribesTo(['transaction.completed'], 'transaction.completed')).toBe(true);
    expect(subscribesTo(['transaction.completed'], 'transaction.failed')).toBe(false);
  });
});
