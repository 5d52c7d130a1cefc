import type { Store } from '@mmp/platform';
import type { LinkDoc } from './links.js';
import type { SessionDoc } from './sessions.js';
import type { LogoDoc } from './logos.js';

export type ProcessedEventDoc = { _id: string; consumer: string; eventId: string; processedAt: Date };

/** links-checkout's collections; the only place that names them. */
export function openLinksCheckoutDb(store: Store) {
  return {
    links: store.collection<LinkDoc>('payment_links'),
    sessions: store.collection<SessionDoc>('checkout_sessions'),
    processedEvents: store.collection<ProcessedEventDoc>('processed_events'),
    logos: store.collection<LogoDoc>('merchant_logos'),
  };
}
export type LinksCheckoutDb = ReturnType<typeof openLinksCheckoutDb>;

export async function ensureIndexes(db: LinksCheckoutDb): Promise<void> {
  await db.links.ensureIndex({ fields: { shortCode: 1 }, unique: true });
  await db.links.ensureIndex({ fields: { projectId: 1, livemode: 1, createdAt: -1 } });
  await db.links.ensureIndex({ fields: { status: 1, expiresAt: 1 } });
  // The sweep's range on deadlines: NeDB serves a range from a single-field index only.
  await db.links.ensureIndex({ fields: { expiresAt: 1 } });
  await db.sessions.ensureIndex({ fields: { paymentId: 1 } });
  await db.sessions.ensureIndex({ fields: { linkId: 1, status: 1 } });
  await db.sessions.ensureIndex({ fields: { status: 1, expiresAt: 1 } });
  await db.sessions.ensureIndex({ fields: { expiresAt: 1 } });
  await db.processedEvents.ensureIndex({ fields: { processedAt: 1 }, expireAfterSeconds: 30 * 24 * 3600 });
  await db.logos.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
}
