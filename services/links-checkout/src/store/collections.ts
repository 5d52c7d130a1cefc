import type { Collection, Doc, Filter, Store } from '@mmp/platform';
import type { CustomField } from '@mmp/protocol';
import type { LinkStatus } from '../domain/link-rules.js';
import type { SessionOrigin, SessionState } from '../domain/session-state.js';

export type LinkDoc = Doc & {
  _id: string;
  shortCode: string;
  projectId: string;
  livemode: boolean;
  name: string;
  description: string | null;
  amount: number | null;
  currency: string;
  minAmount: number | null;
  maxAmount: number | null;
  /** Stored ACTIVE or INACTIVE as the merchant set it; EXPIRED when the sweep saw its date pass. */
  status: LinkStatus;
  collectPhone: boolean;
  collectEmail: boolean;
  collectName: boolean;
  customFields: CustomField[];
  maxUses: number | null;
  usageCount: number;
  /**
   * Uses held by payments under way (links with maxUses only): the ids of their sessions
   * and their number, changed together in one write so a guard can compare the count.
   * Absent on links stored before holds existed, which the guards read as none.
   */
  reservedBy?: string[];
  reserved?: number;
  expiresAt: Date | null;
  /** Set by DELETE: the link is gone from the API and its page; its sessions and payments stay. */
  deletedAt?: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

export type SessionCustomer = { email: string | null; phone: string | null; name: string | null };

export type SessionDoc = Doc & {
  _id: string;
  projectId: string;
  livemode: boolean;
  origin: SessionOrigin;
  /** Only on sessions created for a merchant's payment: the key of idempotent creation. */
  forPaymentId?: string;
  linkId: string | null;
  paymentId: string | null;
  paymentToken: string | null;
  paymentStatus: string | null;
  amount: number;
  currency: string;
  description: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  customer: SessionCustomer;
  customFields: Record<string, string>;
  metadata: Record<string, unknown>;
  status: SessionState;
  paymentMethod: string | null;
  phone: string | null;
  failureCode: string | null;
  failureReason: string | null;
  expiresAt: Date;
  /** A session of a payment never outlives the payment's own expiry. */
  hardExpiresAt: Date | null;
  /**
   * Set when a pay attempt starts and removed once its outcome is known: from this time on,
   * the recovery loop asks payments what became of an attempt whose answer was lost. Only
   * such sessions carry it, so the loop reads a sparse index of them, never the history.
   * An ISO 8601 UTC string, not a Date: NeDB's sparse index leaves Date values out.
   */
  recoverAt?: string;
  createdAt: Date;
  updatedAt: Date;
};

export type ProcessedEventDoc = Doc & { consumer: string; eventId: string; processedAt: Date };

/** A merchant's logo as last fetched, by project; `data` is null when the URL gave no usable image. */
export type LogoDoc = Doc & {
  _id: string;
  url: string;
  contentType: string | null;
  /** Base64 of the image bytes. */
  data: string | null;
  expiresAt: Date;
};

export type Collections = {
  links: Collection<LinkDoc>;
  sessions: Collection<SessionDoc>;
  processedEvents: Collection<ProcessedEventDoc>;
  logos: Collection<LogoDoc>;
};

export async function openCollections(store: Store): Promise<Collections> {
  const links = store.collection<LinkDoc>('payment_links');
  const sessions = store.collection<SessionDoc>('checkout_sessions');
  const processedEvents = store.collection<ProcessedEventDoc>('processed_events');
  const logos = store.collection<LogoDoc>('merchant_logos');
  await links.ensureIndex({ fields: { shortCode: 1 }, unique: true });
  await links.ensureIndex({ fields: { projectId: 1, livemode: 1, createdAt: -1 } });
  await links.ensureIndex({ fields: { status: 1, expiresAt: 1 } });
  // The sweep's range on deadlines: NeDB serves a range from a single-field index only.
  await links.ensureIndex({ fields: { expiresAt: 1 } });
  await sessions.ensureIndex({ fields: { forPaymentId: 1 }, unique: true, sparse: true });
  await sessions.ensureIndex({ fields: { paymentId: 1 } });
  await sessions.ensureIndex({ fields: { linkId: 1, status: 1 } });
  await sessions.ensureIndex({ fields: { status: 1, expiresAt: 1 } });
  await sessions.ensureIndex({ fields: { expiresAt: 1 } });
  // NeDB serves a range from a single-field index only; sparse, it holds only open attempts.
  await sessions.ensureIndex({ fields: { recoverAt: 1 }, sparse: true });
  await processedEvents.ensureIndex({ fields: { processedAt: 1 }, expireAfterSeconds: 30 * 24 * 3600 });
  await logos.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
  return { links, sessions, processedEvents, logos };
}

/** Only open pay attempts carry `recoverAt`, so its index holds them, not the history. */
export function dueRecoveriesFilter(now: Date): Filter {
  return { recoverAt: { $lte: now.toISOString() } };
}

/** Pay attempts due for a check, oldest first, through the sparse `recoverAt` index. */
export function findDueRecoveries(db: Collections, now: Date, limit: number): Promise<SessionDoc[]> {
  return db.sessions.find(dueRecoveriesFilter(now), { sort: { recoverAt: 1 }, limit });
}
