import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PaymentSnapshot } from '@mmp/protocol';
import { transactionRecords } from '../../test/arbitraries.js';
import { latestRecords, paymentLife, profileFrom, snapshot } from '../../test/fixtures.js';
import { isSettled, netSpent, paymentVersion } from './payment-version.js';
import { customerIdFor, summarize, type TransactionRecord } from './profile.js';

describe('paymentVersion', () => {
  it('grows along every path of the payment lifecycle, even with skewed clocks', () => {
    const life = paymentLife(snapshot({ amount: 10_000 }), 'COMPLETED', [2_000, 8_000]);
    // Give the later events earlier clocks: the status rank still orders them.
    const versions = life.map((event, index) =>
      paymentVersion((event.data as { payment: PaymentSnapshot }).payment, {
        eventId: event.id,
        occurredAt: new Date(Date.UTC(2025, 0, 1) - index * 1000).toISOString(),
      }),
    );
    const processingOnward = versions.slice(2);
    expect([...processingOnward].sort()).toEqual(processingOnward);
  });

  it('puts initiation after creation even when both carry the same time', () => {
    const p = snapshot();
    const at = '2025-01-10T10:00:00.000Z';
    const created = paymentVersion(p, { eventId: 'evt_z', occurredAt: at });
    const initiated = paymentVersion(
      { ...p, paymentMethod: 'MTN_MOMO', payerPhone: '+237670000001' },
      { eventId: 'evt_a', occurredAt: at },
    );
    expect(initiated > created).toBe(true);
  });

  it('puts a late COMPLETED after EXPIRED', () => {
    const p = snapshot();
    const expired = paymentVersion(
      { ...p, status: 'EXPIRED' },
      { eventId: 'evt_b', occurredAt: '2025-01-10T10:15:00Z' },
    );
    const completed = paymentVersion(
      { ...p, status: 'COMPLETED' },
      { eventId: 'evt_a', occurredAt: '2025-01-10T10:14:00Z' },
    );
    expect(completed > expired).toBe(true);
  });
});

describe('netSpent', () => {
  it('counts settled money net of refunds and nothing else', () => {
    const p = snapshot({ amount: 5000 });
    expect(netSpent({ ...p, status: 'PENDING' })).toBe(0);
    expect(netSpent({ ...p, status: 'FAILED' })).toBe(0);
    expect(netSpent({ ...p, status: 'COMPLETED' })).toBe(5000);
    expect(netSpent({ ...p, status: 'PARTIALLY_REFUNDED', refundedAmount: 1500 })).toBe(3500);
    expect(netSpent({ ...p, status: 'REFUNDED', refundedAmount: 0 })).toBe(0);
  });
});

describe('the profile of a set of records (summarize, then profileOf)', () => {
  it('derives totals, contact fields and dates from the payments, whatever their order', () => {
    const first = snapshot({
      amount: 3000,
      createdAt: '2025-01-01T08:00:00.000Z',
      payerName: 'Awa Diallo',
      payerEmail: 'awa@example.com',
    });
    const second = snapshot({
      amount: 7000,
      createdAt: '2025-01-05T08:00:00.000Z',
      payerPhone: '+237670000001',
    });
    const failed = snapshot({ amount: 9000, createdAt: '2025-01-03T08:00:00.000Z' });
    const events = [
      ...paymentLife(first, 'COMPLETED', [1000]),
      ...paymentLife(second, 'COMPLETED'),
      ...paymentLife(failed, 'FAILED'),
    ];
    const profile = profileFrom(latestRecords(events));
    const reversed = profileFrom(latestRecords([...events].reverse()));
    expect(profile).toEqual(reversed);
    expect(profile).toMatchObject({
      totalTransactions: 2,
      totalSpent: 2000 + 7000,
      name: 'Awa Diallo',
      email: 'awa@example.com',
      phone: '+237670000001',
      createdAt: '2025-01-01T08:00:00.000Z',
      lastTransactionAt: '2025-01-05T08:02:00.000Z',
      updatedAt: '2025-01-05T08:02:00.000Z',
    });
  });

  it('has no last transaction before a payment completes', () => {
    const pending = paymentLife(snapshot(), 'PENDING');
    expect(profileFrom(latestRecords(pending))).toMatchObject({
      totalTransactions: 0,
      totalSpent: 0,
      lastTransactionAt: null,
    });
  });

  it('is null for no payments', () => {
    expect(summarize([])).toBeNull();
  });

  it('breaks a tie of creation times by id, the same way whatever the order of the records', () => {
    const at = '2025-02-01T09:00:00.000Z';
    const records: TransactionRecord[] = ['pay_b', 'pay_c', 'pay_a'].map((id) => ({
      payment: snapshot({ id, createdAt: at, payerName: `Name of ${id}`, payerEmail: null }),
      occurredAt: at,
    }));
    for (const order of [records, [...records].reverse(), [records[1]!, records[2]!, records[0]!]]) {
      expect(profileFrom(order)).toMatchObject({ name: 'Name of pay_c', email: null, createdAt: at });
    }
  });

  it('says what sorting the records newest first says, for any set of records', () => {
    fc.assert(
      fc.property(transactionRecords({ minLength: 1 }), (records) => {
        expect(profileFrom(records)).toEqual(bySorting(records));
      }),
    );
  });
});

/**
 * The profile rule as first written: the records sorted newest first, then read. Ids of one
 * creation time compare as text, code unit by code unit, as the stores sort them (`pay_B`
 * before `pay_a`), not by locale.
 */
function bySorting(records: TransactionRecord[]) {
  const iso = (value: string) => new Date(value).toISOString();
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...records].sort(
    (a, b) =>
      byText(iso(b.payment.createdAt), iso(a.payment.createdAt)) || byText(b.payment.id, a.payment.id),
  );
  const first = (pick: (p: PaymentSnapshot) => string | null) =>
    sorted.map((record) => pick(record.payment)).find((value) => value) ?? null;
  const settled = records.filter((record) => isSettled(record.payment.status));
  return {
    email: first((p) => p.payerEmail),
    phone: first((p) => p.payerPhone),
    name: first((p) => p.payerName),
    metadata: {},
    totalTransactions: settled.length,
    totalSpent: settled.reduce((sum, record) => sum + netSpent(record.payment), 0),
    lastTransactionAt:
      settled
        .map((record) => iso(record.payment.completedAt ?? record.occurredAt))
        .sort()
        .at(-1) ?? null,
    createdAt: iso(sorted.at(-1)!.payment.createdAt),
    updatedAt: records
      .map((record) => iso(record.occurredAt))
      .sort()
      .at(-1),
  };
}

describe('customerIdFor', () => {
  it('is a stable UUID per project, environment and external id', () => {
    const id = customerIdFor('p1', false, 'c1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(customerIdFor('p1', false, 'c1')).toBe(id);
    expect(customerIdFor('p1', true, 'c1')).not.toBe(id);
    expect(customerIdFor('p2', false, 'c1')).not.toBe(id);
  });
});
