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

/**
 * What one payment record tells of its customer, kept beside the record so that the store
 * can read a customer's totals, its latest and its earliest through indexes rather than
 * by reading every payment (`ProfileSummary`). Times are ISO strings, which compare as text.
 */
export type RecordFacts = {
  /** What it adds to the customer's spend (`netSpent`). */
  netSpent: number;
  /** When its money reached the merchant; null before. */
  settledAt: string | null;
  /**
   * For each of the payer's details, when the payment carries it, where the payment sorts
   * among its customer's, newest greatest: creation time, then id; else null.
   */
  knownAt: Record<ContactField, string | null>;
};

/** The payer's details a profile carries, and the payment field each is read from. */
export const CONTACT_FIELDS = { email: 'payerEmail', phone: 'payerPhone', name: 'payerName' } as const;
export type ContactField = keyof typeof CONTACT_FIELDS;
export const CONTACTS = Object.keys(CONTACT_FIELDS) as ContactField[];

export function recordFacts(record: TransactionRecord): RecordFacts {
  return factsAt(record, iso(record.payment.createdAt));
}

/** `recordFacts`, given the payment's creation time already in ISO form. */
function factsAt(record: TransactionRecord, createdAt: string): RecordFacts {
  const { payment } = record;
  const recency = `${createdAt}|${payment.id}`;
  return {
    netSpent: netSpent(payment),
    settledAt: isSettled(payment.status) ? iso(payment.completedAt ?? record.occurredAt) : null,
    knownAt: {
      email: payment.payerEmail ? recency : null,
      phone: payment.payerPhone ? recency : null,
      name: payment.payerName ? recency : null,
    },
  };
}

/**
 * What a profile is derived from: counts, sums, greatest and least values over a customer's
 * payment records. Each is exact whatever subset of events was seen and in whatever order,
 * because each record holds its greatest version; the store computes the same figures where
 * the records are kept (`summaryOf`), and `summarize` is their definition.
 */
export type ProfileSummary = Record<ContactField, string | null> & {
  settledCount: number;
  spent: number;
  /** Greatest `settledAt`; null when nothing settled. */
  lastSettledAt: string | null;
  /** Least creation time. */
  firstCreatedAt: string;
  /** Greatest event time. */
  lastOccurredAt: string;
};

/**
 * The summary of a set of records, read in one pass; null for none. Each of the payer's
 * details is the newest payment's (by creation time, then id) that carries it.
 */
export function summarize(records: TransactionRecord[]): ProfileSummary | null {
  if (records.length === 0) return null;
  const newest: Record<ContactField, string> = { email: '', phone: '', name: '' };
  const summary: ProfileSummary = {
    settledCount: 0,
    spent: 0,
    lastSettledAt: null,
    // Beyond every ISO time on the side each is replaced from, so the first record sets both.
    firstCreatedAt: '\uffff',
    lastOccurredAt: '',
    email: null,
    phone: null,
    name: null,
  };
  for (const record of records) {
    const { payment } = record;
    const createdAt = iso(payment.createdAt);
    const facts = factsAt(record, createdAt);
    const occurredAt = iso(record.occurredAt);
    if (createdAt < summary.firstCreatedAt) summary.firstCreatedAt = createdAt;
    if (occurredAt > summary.lastOccurredAt) summary.lastOccurredAt = occurredAt;
    summary.spent += facts.netSpent;
    if (facts.settledAt !== null) {
      summary.settledCount += 1;
      if (summary.lastSettledAt === null || facts.settledAt > summary.lastSettledAt)
        summary.lastSettledAt = facts.settledAt;
    }
    for (const field of CONTACTS) {
      const at = facts.knownAt[field];
      if (at && at > newest[field]) {
        newest[field] = at;
        summary[field] = payment[CONTACT_FIELDS[field]];
      }
    }
  }
  return summary;
}

/**
 * The profile a summary says. With `summarize` it is a pure function of the customer's
 * records, which is what makes the projection exact: redelivered, reordered or replayed
 * events can only change the records to their greatest version, never count twice. Dates
 * are event and payment times, never the time of processing, so a rebuild from the stream
 * reproduces them.
 */
export function profileOf(summary: ProfileSummary): DerivedProfile {
  return {
    email: summary.email,
    phone: summary.phone,
    name: summary.name,
    metadata: {},
    totalTransactions: summary.settledCount,
    totalSpent: summary.spent,
    lastTransactionAt: summary.lastSettledAt,
    createdAt: summary.firstCreatedAt,
    updatedAt: summary.lastOccurredAt,
  };
}
