import { DuplicateKeyError } from '@mmp/platform';
import type { ChannelBadge } from '../domain/certification.js';
import type { RouterDb } from './db.js';

/** Certified channels by provider: of one provider, or of all. */
export async function certifiedChannelsByProvider(
  db: RouterDb,
  providerId?: string,
): Promise<Map<string, ChannelBadge['channel'][]>> {
  const badges = await db.channelBadges.find(
    providerId ? { providerId, certified: true } : { certified: true },
  );
  const byProvider = new Map<string, ChannelBadge['channel'][]>();
  for (const badge of badges)
    byProvider.set(badge.providerId, [...(byProvider.get(badge.providerId) ?? []), badge.channel]);
  return byProvider;
}

/** The ids of a provider's certified channels. */
export async function certifiedChannelIds(db: RouterDb, providerId: string): Promise<Set<string>> {
  const badges = await db.channelBadges.find({ providerId, certified: true });
  return new Set(badges.map((badge) => badge._id));
}

/**
 * Records a run's decision unless a later one is stored already (compare-and-set on
 * `decidedAt`); false when it was older and so ignored.
 */
export async function recordChannelBadge(db: RouterDb, badge: ChannelBadge): Promise<boolean> {
  const { _id, ...fields } = badge;
  try {
    const stored = await db.channelBadges.findOneAndUpdate(
      { _id, decidedAt: { $lt: badge.decidedAt } },
      { $set: fields },
      { upsert: true },
    );
    return stored !== null;
  } catch (error) {
    // The badge exists with a decision at least as recent: this one is stale.
    if (error instanceof DuplicateKeyError) return false;
    throw error;
  }
}
