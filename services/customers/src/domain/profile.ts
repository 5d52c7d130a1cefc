import { createHash } from 'node:crypto';
import type { PaymentSnapshot } from '@mmp/protocol';
import { isSettled, netSpent } from './payment-version.js';

/** The projection's record of one payment: its latest known snapshot and where it came from. */
export type TransactionRecord = {
  payment: PaymentSnapshot;
  /** Time of the event the snapshot came from. */
  occurredAt: string;
};

/** Everything about a customer that is derived from its payments. */
export type DerivedProfile = {
  email: string | null;
  phone: string | null;
  name: string | null;
  metadata: Record<string, unknown>;
  /** Completed payments, including those refunded since. */
  totalTransactions: number;
  /** Completed payments net of refunds. */
  totalSpent: number;
  /** Completion time of the latest completed payment; null before the first. */
  lastTransactionAt: string | null;
  createdAt: string;
  updatedAt: string;
};

// Fixed namespace of customer ids (a UUID v5 namespace, chosen once for this system).
const NAMESPACE = Buffer.from('5b0f6f2e8c4a4d2c9a51c1d0b7e3a9f4', 'hex');

/**
 * A customer's id is a name-based UUID (v5) of its project, environment and external id:
 * the same customer gets the same id on every replica and after every rebuild, so ids
 * the merchant stored stay valid and concurrent first payments cannot create two profiles.
 */
export function customerIdFor(projectId: string, livemode: boolean, externalId: string): string {
  const hash = createHash('sha1')
    .update(NAMESPACE)
    .update(`${projectId}\u0000${livemode ? 'live' : 'test'}\u0000${externalId}`)
    .digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const iso = (value: string) => new Date(value).toISOString();

/** Newest payment first; ties by id so the choice never depends on arrival order. */
function newestFirst(a: TransactionRecord, b: TransactionRecord): number {
  const byTime = iso(b.payment.createdAt).localeCompare(iso(a.payment.createdAt));
  return byTime !== 0 ? byTime : b.payment.id.localeCompare(a.payment.id);
}

function latestKnown(
  records: TransactionRecord[],
  pick: (p: PaymentSnapshot) => string | null,
): string | null {
  for (const record of records) {
    const value = pick(record.payment);
    if (value) return value;
  }
  return null;
}

/**
 * Derives a profile from the full set of its payment records. It is a pure function of
 * that set, which is what makes the projection exact: redelivered, reordered or replayed
 * events can only change the set's records to their greatest version, never count twice.
 * Dates are event and payment times, never the time of processing, so a rebuild from the
 * stream reproduces them. Returns null for an empty set.
 */
export function deriveProfile(records: TransactionRecord[]): DerivedProfile | null {
  if (records.length === 0) return null;
  const sorted = [...records].sort(newestFirst);
  const oldest = sorted[sorted.length - 1]!;
  const settled = records.filter((record) => isSettled(record.payment.status));
  const completions = settled.map((record) => iso(record.payment.completedAt ?? record.occurredAt)).sort();
  return {
    email: latestKnown(sorted, (p) => p.payerEmail),
    phone: latestKnown(sorted, (p) => p.payerPhone),
    name: latestKnown(sorted, (p) => p.payerName),
    metadata: {},
    totalTransactions: settled.length,
    totalSpent: settled.reduce((sum, record) => sum + netSpent(record.payment), 0),
    lastTransactionAt: completions.at(-1) ?? null,
    createdAt: iso(oldest.payment.createdAt),
    updatedAt: records
      .map((record) => iso(record.occurredAt))
      .sort()
      .at(-1)!,
  };
}
