import type { IndexSpec, Store } from '@mmp/platform';
import type { LinkDoc } from './links.js';
import type { SessionDoc } from './sessions.js';
import type { LogoDoc } from './logos.js';

/** links-checkout's collections; the only place that names them. */
export function openLinksCheckoutDb(store: Store) {
  return {
    links: store.collection<LinkDoc>('payment_links'),
    sessions: store.collection<SessionDoc>('checkout_sessions'),
    logos: store.collection<LogoDoc>('merchant_logos'),
  };
}
export type LinksCheckoutDb = ReturnType<typeof openLinksCheckoutDb>;

/** Every index of the service, by collection; created at start (idempotent). */
const INDEXES: { [C in keyof LinksCheckoutDb]: IndexSpec[] } = {
  links: [
    { fields: { shortCode: 1 }, unique: true },
    { fields: { projectId: 1, livemode: 1, createdAt: -1 } },
    { fields: { status: 1, expiresAt: 1 } },
    // The sweep's range on deadlines.
    { fields: { expiresAt: 1 } },
  ],
  sessions: [
    { fields: { paymentId: 1 } },
    { fields: { linkId: 1, status: 1 } },
    { fields: { status: 1, expiresAt: 1 } },
    { fields: { expiresAt: 1 } },
  ],
  logos: [{ fields: { expiresAt: 1 }, expireAfterSeconds: 0 }],
};

export async function ensureIndexes(db: LinksCheckoutDb): Promise<void> {
  for (const collection of Object.keys(INDEXES) as (keyof LinksCheckoutDb)[]) {
    for (const spec of INDEXES[collection]) await db[collection].ensureIndex(spec);
  }
}
