import fc from 'fast-check';
import type { TransactionRecord } from '../src/domain/profile.js';
import { snapshot } from './fixtures.js';

const time = fc.integer({ min: 0, max: 5 }).map((m) => new Date(Date.UTC(2025, 0, 1, 0, m)).toISOString());
const statuses = ['PENDING', 'COMPLETED', 'FAILED', 'EXPIRED', 'PARTIALLY_REFUNDED', 'REFUNDED'] as const;

/**
 * A customer's payment record in any state: times drawn from six minutes (so creation
 * times tie), ids that differ by case only, and payer details some payments lack.
 */
export const transactionRecord = fc
  .record({
    id: fc.stringMatching(/^[0-9A-Za-z]{6}$/),
    createdAt: time,
    occurredAt: time,
    completedAt: fc.option(time, { nil: null }),
    status: fc.constantFrom(...statuses),
    amount: fc.integer({ min: 100, max: 10_000 }),
    payerName: fc.option(fc.constantFrom('Awa', 'Moussa'), { nil: null }),
    payerEmail: fc.option(fc.constantFrom('awa@example.com', 'moussa@example.org'), { nil: null }),
    payerPhone: fc.option(fc.constantFrom('+237670000001', '+237670000002'), { nil: null }),
  })
  .map(({ occurredAt, ...fields }): TransactionRecord => ({
    payment: snapshot({ ...fields, id: `pay_${fields.id}`, refundedAmount: Math.floor(fields.amount / 3) }),
    occurredAt,
  }));

/** Records of distinct payments. */
export const transactionRecords = (length: { minLength: number; maxLength?: number }) =>
  fc.uniqueArray(transactionRecord, { selector: (r) => r.payment.id, ...length });
