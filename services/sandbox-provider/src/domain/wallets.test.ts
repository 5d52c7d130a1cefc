import { describe, expect, it } from 'vitest';
import { CERTIFICATION_NUMBERS } from '@mmp/protocol';
import { planFor } from './wallets.js';

const payee = (msisdn: string) => ({ type: 'payment.execute' as const, payee: { msisdn } });
const payoutTo = (msisdn: string) => ({ type: 'payout.execute' as const, payee: { msisdn } });
const delays = { listedMs: 200, otherMs: 5000 };

describe('planFor', () => {
  it('settles the listed numbers after their own delay, which may be zero', () => {
    expect(planFor(payee('+237690000001'), { listedMs: 0, otherMs: 5000 })).toMatchObject({ delayMs: 0 });
    expect(planFor(payee('+237699999999'), { listedMs: 0, otherMs: 5000 })).toMatchObject({ delayMs: 5000 });
  });

  it('plays the test numbers of the architecture', () => {
    expect(planFor(payee('+237690000001'), delays)).toEqual({
      ack: 'ACCEPTED',
      settlement: 'COMPLETED',
      delayMs: 200,
    });
    expect(planFor(payee('+237670000001'), delays)).toMatchObject({
      ack: 'ACCEPTED',
      settlement: 'COMPLETED',
    });
    expect(planFor(payee('+237690000002'), delays)).toEqual({
      ack: 'REJECTED',
      reason: 'insufficient_balance',
    });
    for (const [number, reason] of [
      ['+237690000004', 'pin_error'],
      ['+237690000005', 'transaction_limit'],
      ['+237690000006', 'account_inactive'],
      ['+237690000007', 'invalid_phone'],
    ])
      expect(planFor(payee(number!), delays)).toEqual({ ack: 'REJECTED', reason });
    expect(planFor(payee('+237690000003'), delays)).toEqual({ ack: 'ACCEPTED', settlement: null });
    expect(planFor(payee('+237699999999'), delays)).toEqual({
      ack: 'ACCEPTED',
      settlement: 'COMPLETED',
      delayMs: 5000,
    });
    expect(
      planFor({ type: 'payment.execute', payee: { ref: 'acct-1' } }, { listedMs: 200, otherMs: 10 }),
    ).toEqual({
      ack: 'ACCEPTED',
      settlement: 'COMPLETED',
      delayMs: 10,
    });
  });

  it('plays the same outcomes on the XOF numbers', () => {
    for (const [number, reason] of [
      ['+2250700000002', 'insufficient_balance'],
      ['+2250700000004', 'pin_error'],
      ['+2250700000005', 'transaction_limit'],
      ['+2250700000006', 'account_inactive'],
      ['+2250700000007', 'invalid_phone'],
    ])
      expect(planFor(payee(number!), delays)).toEqual({ ack: 'REJECTED', reason });
    for (const number of ['+2250700000001', '+2250500000001', '+2250100000001', '+221770000001'])
      expect(planFor(payee(number), delays)).toMatchObject({
        ack: 'ACCEPTED',
        settlement: 'COMPLETED',
        delayMs: 200,
      });
    expect(planFor(payee('+2250700000003'), delays)).toEqual({ ack: 'ACCEPTED', settlement: null });
  });

  it("accepts certification's failure numbers and settles them FAILED (case 2)", () => {
    for (const { failure } of Object.values(CERTIFICATION_NUMBERS))
      expect(planFor(payee(failure), delays)).toMatchObject({ ack: 'ACCEPTED', settlement: 'FAILED' });
  });

  it('pays out to the payout test numbers as documented, and to the payment numbers as they pay', () => {
    expect(planFor(payoutTo('+237690000008'), delays)).toEqual({
      ack: 'REJECTED',
      reason: 'account_inactive',
    });
    expect(planFor(payoutTo('+237690000009'), delays)).toEqual({ ack: 'ACCEPTED', settlement: null });
    expect(planFor(payoutTo('+237690000001'), delays)).toMatchObject({
      ack: 'ACCEPTED',
      settlement: 'COMPLETED',
    });
    expect(planFor(payoutTo('+237690000006'), delays)).toEqual({
      ack: 'REJECTED',
      reason: 'account_inactive',
    });
    // A payment from a payout test number completes like any other number's.
    expect(planFor(payee('+237690000008'), delays)).toEqual({
      ack: 'ACCEPTED',
      settlement: 'COMPLETED',
      delayMs: 5000,
    });
  });
});
