import type { Collection, Doc, Store } from '@mmp/platform';
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
  expiresAt: Date | null;
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
  createdAt: Date;
  updatedAt: Date;
};

export type ProcessedEventDoc = Doc & { consumer: string; eventId: string; processedAt: Date };

export type Collections = {
  links: Collection<LinkDoc>;
  sessions: Collection<SessionDoc>;
  processedEvents: Collection<ProcessedEventDoc>;
};

export async function openCollections(store: Store): Promise<Collections> {
  const links = store.collection<LinkDoc>('payment_links');
  const sessions = store.collection<SessionDoc>('checkout_sessions');
  const processedEvents = store.collection<ProcessedEventDoc>('processed_events');
  await links.ensureIndex({ fields: { shortCode: 1 }, unique: true });
  await links.ensureIndex({ fields: { projectId: 1, livemode: 1, createdAt: -1 } });
  await links.ensureIndex({ fields: { status: 1, expiresAt: 1 } });
  await sessions.ensureIndex({ fields: { forPaymentId: 1 }, unique: true, sparse: true });
  await sessions.ensureIndex({ fields: { paymentId: 1 } });
  await sessions.ensureIndex({ fields: { linkId: 1, status: 1 } });
  await sessions.ensureIndex({ fields: { status: 1, expiresAt: 1 } });
  await processedEvents.ensureIndex({ fields: { processedAt: 1 }, expireAfterSeconds: 30 * 24 * 3600 });
  return { links, sessions, processedEvents };
}
