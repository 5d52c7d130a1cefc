import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUSES, type PaymentStatus } from '@mmp/protocol';
import {
  TRANSITIONS,
  canTransition,
  eventOf,
  onExecutionAccepted,
  onExecutionFailed,
  onExpiry,
  onMerchantCancel,
  onPayerCancel,
  onSettlement,
  type Decision,
} from './lifecycle.js';

const to = (decision: Decision) => (decision.kind === 'move' ? decision.move.to : null);

describe('payment lifecycle', () => {
  it('allows exactly the documented moves', () => {
    expect(canTransition('PENDING', 'PROCESSING')).toBe(true);
    expect(canTransition('PROCESSING', 'COMPLETED')).toBe(true);
    expect(canTransition('PROCESSING', 'FAILED')).toBe(true);
    expect(canTransition('PENDING', 'EXPIRED')).toBe(true);
    expect(canTransition('PROCESSING', 'CANCELLED')).toBe(true);
    expect(canTransition('COMPLETED', 'PARTIALLY_REFUNDED')).toBe(true);
    expect(canTransition('PARTIALLY_REFUNDED', 'REFUNDED')).toBe(true);
    expect(canTransition('COMPLETED', 'FAILED')).toBe(false);
    expect(canTransition('REFUNDED', 'COMPLETED')).toBe(false);
    expect(canTransition('EXPIRED', 'PROCESSING')).toBe(false);
    expect(canTransition('COMPLETED', 'PENDING')).toBe(false);
  });

  it('never leads back to PENDING and every target is a known state', () => {
    for (const from of PAYMENT_STATUSES) {
      expect(TRANSITIONS[from]).not.toContain('PENDING');
      for (const target of TRANSITIONS[from]) expect(PAYMENT_STATUSES).toContain(target);
    }
  });

  it('every decision the triggers take is an allowed move', () => {
    const settlements = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REFUNDED'] as const;
    for (const from of PAYMENT_STATUSES) {
      const decisions = [
        onExecutionAccepted(from),
        onExecutionFailed(from),
        onMerchantCancel(from),
        onPayerCancel(from),
        onExpiry(from, '2000-01-01T00:00:00.000Z', new Date()),
        ...settlements.map((s) => onSettlement(from, s)),
      ];
      for (const decision of decisions) {
        if (decision.kind === 'move') expect(canTransition(from, decision.move.to)).toBe(true);
      }
    }
  });

  /** A trigger that reads nothing but the status, and where it leads from each status tried (null: nowhere). */
  const byStatus: [
    string,
    (from: PaymentStatus) => Decision,
    Partial<Record<PaymentStatus, PaymentStatus | null>>,
  ][] = [
    [
      'moves PENDING to PROCESSING on an accepted execution, once',
      onExecutionAccepted,
      { PENDING: 'PROCESSING', PROCESSING: null, COMPLETED: null },
    ],
    [
      'fails open payments on a failed execution and leaves settled ones alone',
      onExecutionFailed,
      { PENDING: 'FAILED', PROCESSING: 'FAILED', COMPLETED: null },
    ],
    [
      'lets the merchant cancel only PENDING payments',
      onMerchantCancel,
      { PENDING: 'CANCELLED', PROCESSING: null, COMPLETED: null },
    ],
    [
      'lets the payer cancel open payments only',
      onPayerCancel,
      { PENDING: 'CANCELLED', PROCESSING: 'CANCELLED', COMPLETED: null, EXPIRED: null },
    ],
  ];
  it.each(byStatus)('%s', (_name, trigger, outcomes) => {
    for (const [from, target] of Object.entries(outcomes))
      expect(to(trigger(from as PaymentStatus)), from).toBe(target);
  });

  it('applies settlements by status', () => {
    expect(to(onSettlement('PROCESSING', 'COMPLETED'))).toBe('COMPLETED');
    expect(to(onSettlement('PENDING', 'COMPLETED'))).toBe('COMPLETED');
    expect(to(onSettlement('PROCESSING', 'FAILED'))).toBe('FAILED');
    expect(to(onSettlement('PROCESSING', 'CANCELLED'))).toBe('CANCELLED');
    expect(to(onSettlement('PENDING', 'PENDING'))).toBe('PROCESSING');
    expect(to(onSettlement('COMPLETED', 'REFUNDED'))).toBe('REFUNDED');
    expect(to(onSettlement('COMPLETED', 'COMPLETED'))).toBeNull();
  });

  it('never lets a FAILED settlement downgrade a COMPLETED payment, and records the contradiction', () => {
    const decision = onSettlement('COMPLETED', 'FAILED');
    expect(decision).toEqual({
      kind: 'none',
      reason: 'already COMPLETED',
      anomaly: 'failed_after_completed',
    });
  });

  it('completes an EXPIRED or CANCELLED payment on a COMPLETED settlement, as an anomaly', () => {
    for (const from of ['EXPIRED', 'CANCELLED', 'FAILED'] as PaymentStatus[]) {
      const decision = onSettlement(from, 'COMPLETED');
      expect(decision).toEqual({
        kind: 'move',
        move: { to: 'COMPLETED', anomaly: `completed_after_${from.toLowerCase()}` },
      });
    }
  });

  it('expires open payments only past their deadline', () => {
    const now = new Date('2024-01-01T00:15:00.000Z');
    expect(to(onExpiry('PENDING', '2024-01-01T00:14:59.000Z', now))).toBe('EXPIRED');
    expect(to(onExpiry('PROCESSING', '2024-01-01T00:15:00.000Z', now))).toBe('EXPIRED');
    expect(to(onExpiry('PENDING', '2024-01-01T00:15:01.000Z', now))).toBeNull();
    expect(to(onExpiry('COMPLETED', '2024-01-01T00:00:00.000Z', now))).toBeNull();
  });

  it('names the event of each state', () => {
    expect(eventOf('COMPLETED').type).toBe('payment.completed');
    expect(eventOf('PARTIALLY_REFUNDED').type).toBe('payment.partially_refunded');
  });
});
