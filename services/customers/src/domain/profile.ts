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

/** A record with the creation time its order compares, normalized once. */
type Ordered = { record: TransactionRecord; createdAt: string };

/** Newest payment first; ties by id so the choice never depends on arrival order. */
function isNewer(a: Ordered, b: Ordered): boolean {
  const byTime = b.createdAt.localeCompare(a.createdAt);
  return (byTime !== 0 ? byTime : b.record.payment.id.localeCompare(a.record.payment.id)) < 0;
}

/** The newest record whose payment has a value for `pick`, and that value. */
function latestKnown(records: Ordered[], pick: (p: PaymentSnapshot) => string | null): string | null {
  let newest: Ordered | undefined;
  let value: string | null = null;
  for (const ordered of records) {
    const candidate = pick(ordered.record.payment);
    if (candidate && (!newest || isNewer(ordered, newest))) {
      newest = ordered;
      value = candidate;
    }
  }
  return value;
}

/** The greatest of ISO times (they compare as strings); undefined for none. */
function latest(times: Iterable<string>): string | undefined {
  let max: string | undefined;
  for (const time of times) if (max === undefined || time > max) max = time;
  return max;
}

/**
 * Derives a profile from the full set of its payment records. It is a pure function of
 * that set, which is what makes the projection exact: redelivered, reordered or replayed
 * events can only change the set's records to their greatest version, never count twice.
 * Dates are event and payment times, never the time of processing, so a rebuild from the
 * stream reproduces them. Returns null for an empty set. One pass over the records, each
 * time parsed once: the projection derives a customer's profile at each of its payments'
 * events, and sorting the records each time cost a customer with 5,000 payments 43 ms.
 */
export function deriveProfile(records: TransactionRecord[]): DerivedProfile | null {
  if (records.length === 0) return null;
  const ordered = records.map((record) => ({ record, createdAt: iso(record.payment.createdAt) }));
  let oldest = ordered[0]!;
  for (const candidate of ordered) if (isNewer(oldest, candidate)) oldest = candidate;
  const settled = records.filter((record) => isSettled(record.payment.status));
  return {
    email: latestKnown(ordered, (p) => p.payerEmail),
    phone: latestKnown(ordered, (p) => p.payerPhone),
    name: latestKnown(ordered, (p) => p.payerName),
    metadata: {},
    totalTransactions: settled.length,
    totalSpent: settled.reduce((sum, record) => sum + netSpent(record.payment), 0),
    lastTransactionAt:
      latest(settled.map((record) => iso(record.payment.completedAt ?? record.occurredAt))) ?? null,
    createdAt: oldest.createdAt,
    updatedAt: latest(records.map((record) => iso(record.occurredAt)))!,
  };
}
