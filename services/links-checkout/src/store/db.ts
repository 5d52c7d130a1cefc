import { collection, ensureCollectionIndexes, openCollections, type Store } from '@mmp/platform';
import type { LinkDoc } from './links.js';
import type { SessionDoc } from './sessions.js';
import type { LogoDoc } from './logos.js';

/** links-checkout's collections with their indexes; the only place that names them. */
const COLLECTIONS = {
  links: collection<LinkDoc>('payment_links', [
    { fields: { shortCode: 1 }, unique: true },
    { fields: { projectId: 1, livemode: 1, createdAt: -1 } },
    { fields: { status: 1, expiresAt: 1 } },
    // The sweep's range on deadlines.
    { fields: { expiresAt: 1 } },
  ]),
  sessions: collection<SessionDoc>('checkout_sessions', [
    { fields: { paymentId: 1 } },
    { fields: { linkId: 1, status: 1 } },
    { fields: { status: 1, expiresAt: 1 } },
    { fields: { expiresAt: 1 } },
  ]),
  logos: collection<LogoDoc>('merchant_logos', [{ fields: { expiresAt: 1 }, expireAfterSeconds: 0 }]),
};

export const openLinksCheckoutDb = (store: Store) => openCollections(store, COLLECTIONS);
export type LinksCheckoutDb = ReturnType<typeof openLinksCheckoutDb>;

export const ensureIndexes = (db: LinksCheckoutDb) => ensureCollectionIndexes(db, COLLECTIONS);
