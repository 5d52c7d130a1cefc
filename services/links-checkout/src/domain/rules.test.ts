import { describe, expect, it } from 'vitest';
import { chooseAmount, effectiveStatus, termProblems, whyUnusable } from './link-rules.js';
import { MOVES_BY_EVENT, canRetry, nextExpiry, stateOfPayment } from './session-state.js';

const now = new Date('2025-01-01T12:00:00Z');
const link = {
  status: 'ACTIVE' as const,
  expiresAt: null,
  amount: null,
  minAmount: 500,
  maxAmount: 1000,
  maxUses: 2,
  usageCount: 0,
};

describe('link rules', () => {
  it('computes EXPIRED from the date, INACTIVE wins', () => {
    expect(effectiveStatus({ status: 'ACTIVE', expiresAt: new Date('2024-12-31T00:00:00Z') }, now)).toBe(
      'EXPIRED',
    );
    expect(effectiveStatus({ status: 'INACTIVE', expiresAt: new Date('2024-12-31T00:00:00Z') }, now)).toBe(
      'INACTIVE',
    );
    expect(effectiveStatus({ status: 'EXPIRED', expiresAt: new Date('2026-01-01T00:00:00Z') }, now)).toBe(
      'ACTIVE',
    );
  });

  it('says why a link cannot be paid', () => {
    expect(whyUnusable(link, now)).toBeNull();
    expect(whyUnusable({ ...link, usageCount: 2 }, now)?.code).toBe('link_exhausted');
    expect(whyUnusable({ ...link, status: 'INACTIVE' }, now)?.code).toBe('link_inactive');
    expect(whyUnusable({ ...link, deletedAt: now }, now)?.code).toBe('link_inactive');
    expect(whyUnusable({ ...link, maxUses: null, usageCount: 99 }, now, 99)).toBeNull();
  });

  it('counts uses held by payments under way at pay time', () => {
    expect(whyUnusable({ ...link, usageCount: 1 }, now, 0)).toBeNull();
    const held = whyUnusable({ ...link, usageCount: 1 }, now, 1);
    expect(held?.code).toBe('link_exhausted');
    expect(held?.message).toMatch(/in progress/);
    expect(whyUnusable(link, now, 2)?.code).toBe('link_exhausted');
  });

  it('chooses the amount within bounds and global limits', () => {
    expect(
      chooseAmount({ amount: 700, minAmount: null, maxAmount: null }, 5, { min: 100, max: 5_000_000 }),
    ).toBe(700);
    expect(chooseAmount(link, 800, { min: 100, max: 5_000_000 })).toBe(800);
    expect(chooseAmount(link, 1001, { min: 100, max: 5_000_000 })).toHaveProperty('message');
    expect(
      chooseAmount({ amount: null, minAmount: null, maxAmount: null }, 50, { min: 100, max: 5_000_000 }),
    ).toHaveProperty('message');
  });

  it('refuses inconsistent amount terms', () => {
    expect(termProblems({ amount: 100, minAmount: 100, maxAmount: null })).toHaveLength(1);
    expect(termProblems({ amount: null, minAmount: 900, maxAmount: 100 })).toHaveLength(1);
    expect(termProblems({ amount: null, minAmount: 100, maxAmount: 900 })).toEqual([]);
  });
});

describe('session state machine', () => {
  it('lets a completion win over every state but success, and nothing leave success', () => {
    expect(MOVES_BY_EVENT['payment.completed']?.from).not.toContain('success');
    for (const move of Object.values(MOVES_BY_EVENT)) expect(move.from).not.toContain('success');
  });

  it('offers a retry only to link sessions that failed or expired', () => {
    expect(canRetry('failed', 'link')).toBe(true);
    expect(canRetry('failed', 'payment')).toBe(false);
    expect(canRetry('cancelled', 'link')).toBe(false);
  });

  it('never lets a session outlive its payment', () => {
    const hard = new Date(now.getTime() + 60_000);
    expect(nextExpiry(now, 900, hard)).toEqual(hard);
    expect(nextExpiry(now, 30, hard)).toEqual(new Date(now.getTime() + 30_000));
  });
});

describe('the session of a payment as payments has it', () => {
  it('is on the form until the payer chose, then follows the payment', () => {
    const of = (status: string, paymentMethod = 'UNKNOWN') => stateOfPayment({ status, paymentMethod });
    expect(of('PENDING')).toBe('idle');
    expect(of('PENDING', 'MTN_MOMO')).toBe('processing');
    expect(of('PROCESSING', 'MTN_MOMO')).toBe('pending_ussd');
    expect(of('COMPLETED', 'MTN_MOMO')).toBe('success');
    expect(of('REFUNDED', 'MTN_MOMO')).toBe('success');
    expect(of('FAILED', 'MTN_MOMO')).toBe('failed');
    expect(of('EXPIRED')).toBe('expired');
    expect(of('CANCELLED')).toBe('cancelled');
  });
});
