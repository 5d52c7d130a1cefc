import { describe, expect, it } from 'vitest';
import { planRecovery } from './recovery.js';

describe('recovery of a lost pay attempt', () => {
  it('gives the use back when payments has no payment for the session', () => {
    expect(planRecovery('idle', null)).toEqual({ kind: 'no_payment' });
    expect(planRecovery('processing', null)).toEqual({ kind: 'no_payment' });
  });

  it('applies the end of a payment that ended, as its event would', () => {
    const ended = (status: string) => planRecovery('processing', { status, paymentMethod: 'MTN_MOMO' });
    expect(ended('COMPLETED')).toEqual({ kind: 'ended', eventType: 'payment.completed' });
    expect(ended('FAILED')).toEqual({ kind: 'ended', eventType: 'payment.failed' });
    expect(ended('EXPIRED')).toEqual({ kind: 'ended', eventType: 'payment.expired' });
    expect(ended('CANCELLED')).toEqual({ kind: 'ended', eventType: 'payment.cancelled' });
  });

  it('sends back to the form only a session in processing whose payment was never initiated', () => {
    const pending = { status: 'PENDING', paymentMethod: 'UNKNOWN' };
    expect(planRecovery('processing', pending)).toEqual({ kind: 'open', backToForm: true });
    expect(planRecovery('pending_ussd', pending)).toEqual({ kind: 'open', backToForm: false });
    expect(planRecovery('idle', pending)).toEqual({ kind: 'open', backToForm: false });
    expect(planRecovery('processing', { status: 'PENDING', paymentMethod: 'MTN_MOMO' })).toEqual({
      kind: 'open',
      backToForm: false,
    });
    expect(planRecovery('processing', { status: 'PROCESSING', paymentMethod: 'MTN_MOMO' })).toEqual({
      kind: 'open',
      backToForm: false,
    });
  });
});
