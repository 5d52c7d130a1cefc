import { describe, expect, it } from 'vitest';
import { accountId, createLedgerReplay, entryKey, payoutGate, refundGate } from './ledger.js';

const scope = { projectId: 'p1', livemode: false, currency: 'XAF' as const };

describe('refundGate', () => {
  it('gives all that remains by default, never more than the payment or the balance', () => {
    expect(refundGate({ available: 5000, refunded: {} }, 'pay1', 5000, undefined)).toEqual({
      ok: true,
      amount: 5000,
    });
    expect(refundGate({ available: 5000, refunded: { pay1: 2000 } }, 'pay1', 5000, undefined)).toEqual({
      ok: true,
      amount: 3000,
    });
    expect(refundGate({ available: 5000, refunded: { pay1: 2000 } }, 'pay1', 5000, 3001)).toEqual({
      ok: false,
      reason: 'above_remaining',
      remaining: 3000,
    });
    expect(refundGate({ available: 5000, refunded: { pay1: 5000 } }, 'pay1', 5000, undefined)).toMatchObject({
      ok: false,
      reason: 'nothing_left',
    });
    expect(refundGate({ available: 100, refunded: {} }, 'pay1', 5000, 200)).toMatchObject({
      ok: false,
      reason: 'insufficient_balance',
    });
  });
});

describe('payoutGate', () => {
  it('allows what the available balance covers, to the last franc', () => {
    expect(payoutGate({ available: 1000 }, 1000)).toBe(true);
    expect(payoutGate({ available: 999 }, 1000)).toBe(false);
  });
});

describe('ledger keys', () => {
  it('names an account by project, environment and currency, and entries without dots', () => {
    expect(accountId(scope)).toBe('p1:test:XAF');
    expect(accountId({ ...scope, livemode: true, currency: 'XOF' })).toBe('p1:live:XOF');
    expect(entryKey('refund', 'rf_a.b')).toBe('refund_rf_a_b');
  });
});

describe('createLedgerReplay', () => {
  it('counts each event once and gives a failed transfer back', () => {
    const ledger = createLedgerReplay();
    ledger.completed({ id: 'pay1', amount: 5000, ...scope });
    ledger.completed({ id: 'pay1', amount: 5000, ...scope });
    ledger.requested({ transferId: 'rf_1', amount: 2000, ...scope });
    ledger.requested({ transferId: 'po_1', amount: 1000, ...scope });
    ledger.requested({ transferId: 'po_1', amount: 1000, ...scope });
    ledger.settled({ transferId: 'rf_1', status: 'FAILED' });
    ledger.settled({ transferId: 'rf_1', status: 'FAILED' });
    expect(ledger.accounts.get('p1:test:XAF')).toEqual({ available: 4000, pending: 1000, entries: 4 });
    ledger.settled({ transferId: 'po_1', status: 'COMPLETED' });
    expect(ledger.accounts.get('p1:test:XAF')).toMatchObject({ available: 4000, pending: 0 });
  });
});
