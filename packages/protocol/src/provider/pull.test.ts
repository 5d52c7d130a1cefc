import { describe, expect, it } from 'vitest';
import { paymentExecute } from '../test-support/orders.js';
import { PullOrder, PullOrdersQuery, PullOrdersResponse } from './pull.js';

const order = {
  idempotency_key: paymentExecute.idempotency_key,
  payload: paymentExecute,
  status: 'pending',
  created_at: '2025-01-31T12:00:00.000Z',
  expires_at: '2025-01-31T12:15:00.000Z',
  delivery_count: 0,
};

describe('pull transport', () => {
  it('accepts orders in each state, with the stored ack once acked', () => {
    expect(PullOrdersResponse.parse({ orders: [order] })).toEqual({ orders: [order] });
    for (const status of ['pending', 'DELIVERED', 'expired'])
      expect(PullOrder.safeParse({ ...order, status }).success).toBe(true);
    const ack = { type: 'payment.ack', idempotency_key: paymentExecute.idempotency_key, status: 'ACCEPTED' };
    expect(PullOrder.parse({ ...order, status: 'acked', delivery_count: 2, ack })).toMatchObject({ ack });
  });

  it.each([
    ['status', 'PENDING'],
    ['delivery_count', -1],
    ['payload', { ...paymentExecute, amount: 5000 }],
    ['expires_at', 'later'],
    ['ack', { type: 'health.ack', nonce: 'n' }],
  ])('rejects a bad %s', (field, value) => {
    expect(PullOrder.safeParse({ ...order, [field]: value }).success).toBe(false);
  });

  it('query defaults to pending and 50, caps at 100', () => {
    expect(PullOrdersQuery.parse({})).toEqual({ status: 'pending', limit: 50, wait_ms: 0 });
    expect(PullOrdersQuery.parse({ status: 'pending', limit: '100', wait_ms: '20000' })).toEqual({
      status: 'pending',
      limit: 100,
      wait_ms: 20_000,
    });
    expect(PullOrdersQuery.safeParse({ wait_ms: '20001' }).success).toBe(false);
    expect(PullOrdersQuery.safeParse({ wait_ms: '-1' }).success).toBe(false);
    expect(PullOrdersQuery.safeParse({ limit: '101' }).success).toBe(false);
    expect(PullOrdersQuery.safeParse({ status: 'acked' }).success).toBe(false);
  });
});
