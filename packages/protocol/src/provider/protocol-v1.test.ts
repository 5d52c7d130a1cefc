import { describe, expect, it } from 'vitest';
import { paymentExecute } from '../test-support/orders.js';
import { refusedFields } from '../test-support/refused-fields.js';
import {
  ExecutionOrder,
  HealthAck,
  HealthCheck,
  OrderAck,
  PaymentAck,
  PaymentExecute,
  PayoutAck,
  PayoutExecute,
  ProviderAck,
  ProviderRequest,
  ackTypeFor,
} from './protocol-v1.js';

const health = {
  protocol_version: '1',
  type: 'health.check',
  nonce: '9f86d081884c7d65',
  timestamp: 1_700_000_000,
};
const payout = {
  ...paymentExecute,
  type: 'payout.execute',
  idempotency_key: 'pexo_AbCdEfGhIjKlMnOpQrStUvWx',
  payee: { ref: 'wallet-42' },
  transaction_ref: 'po_1',
};

describe('HealthCheck', () => {
  it('accepts a probe', () => {
    expect(HealthCheck.parse(health)).toEqual(health);
  });

  it.each([
    ['protocol_version', 1],
    ['type', 'health.ping'],
    ['nonce', 'XYZ'],
    ['nonce', ''],
    ['timestamp', 0],
    ['timestamp', 1.5],
    ['timestamp', '1700000000'],
  ])('rejects a bad %s', (field, value) => {
    expect(refusedFields(HealthCheck.safeParse({ ...health, [field]: value }))).toContain(field);
  });
});

describe('PaymentExecute and PayoutExecute', () => {
  it('accept valid orders, decimal amounts included', () => {
    expect(PaymentExecute.parse(paymentExecute)).toEqual(paymentExecute);
    expect(PayoutExecute.parse(payout)).toEqual(payout);
    expect(PaymentExecute.safeParse({ ...paymentExecute, amount: '5000.00' }).success).toBe(true);
    expect(ExecutionOrder.parse(payout).type).toBe('payout.execute');
    expect(ProviderRequest.parse(health).type).toBe('health.check');
  });

  it.each([
    ['protocol_version', '2'],
    ['idempotency_key', 'pexo_x'],
    ['idempotency_key', ''],
    ['amount', 5000],
    ['amount', '5000.50'],
    ['currency', 'xaf'],
    ['currency', 'XAFX'],
    ['network', 'AIRTEL'],
    ['country', 'CMR'],
    ['payee', { msisdn: '690000001' }],
    ['payee', { msisdn: '+237690000001', ref: 'x' }],
    ['payee', {}],
    ['payee', { ref: '' }],
    ['transaction_ref', ''],
    ['timestamp', -1],
  ])('payment.execute rejects a bad %s', (field, value) => {
    expect(refusedFields(PaymentExecute.safeParse({ ...paymentExecute, [field]: value }))[0]).toMatch(
      new RegExp(`^${field}`),
    );
  });

  it('payout keys start with pexo_ and unknown fields are refused', () => {
    expect(refusedFields(PayoutExecute.safeParse({ ...payout, idempotency_key: 'pexec_x' }))).toEqual([
      'idempotency_key',
    ]);
    expect(refusedFields(PaymentExecute.safeParse({ ...paymentExecute, callback_url: 'https://x' }))).toEqual(
      ['callback_url'],
    );
    expect(ExecutionOrder.safeParse({ ...paymentExecute, type: 'refund.execute' }).success).toBe(false);
  });
});

describe('acks', () => {
  it('accept the handler duties shapes', () => {
    expect(HealthAck.parse({ type: 'health.ack', nonce: health.nonce })).toBeTruthy();
    expect(
      PaymentAck.parse({
        type: 'payment.ack',
        idempotency_key: paymentExecute.idempotency_key,
        status: 'ACCEPTED',
      }),
    ).toBeTruthy();
    expect(
      PayoutAck.parse({
        protocol_version: '1',
        type: 'payout.ack',
        idempotency_key: payout.idempotency_key,
        status: 'REJECTED',
        reason: 'insufficient_balance',
      }),
    ).toBeTruthy();
    expect(OrderAck.parse({ type: 'payout.ack', idempotency_key: 'k', status: 'ACCEPTED' }).type).toBe(
      'payout.ack',
    );
    expect(ProviderAck.parse({ type: 'health.ack', nonce: 'n' }).type).toBe('health.ack');
  });

  it.each([
    [{ type: 'health.ack' }, 'nonce'],
    [{ type: 'payment.ack', status: 'ACCEPTED' }, 'idempotency_key'],
    [{ type: 'payment.ack', idempotency_key: 'k', status: 'OK' }, 'status'],
    [{ type: 'payment.ack', idempotency_key: 'k' }, 'status'],
    [{ type: 'payment.ack', idempotency_key: 'k', status: 'ACCEPTED', paid: true }, 'paid'],
    [
      { type: 'payment.ack', idempotency_key: 'k', status: 'ACCEPTED', protocol_version: 1 },
      'protocol_version',
    ],
  ])('reject %j', (ack, field) => {
    expect(refusedFields(ProviderAck.safeParse(ack))).toContain(field);
  });

  it('ackTypeFor pairs requests and acks', () => {
    expect(ackTypeFor('health.check')).toBe('health.ack');
    expect(ackTypeFor('payment.execute')).toBe('payment.ack');
    expect(ackTypeFor('payout.execute')).toBe('payout.ack');
  });
});
