import type { Channel } from '@mmp/protocol';
import type { Rail } from './rail.js';

/**
 * The CERTIFIED badge of one channel (provider, network, country, currency), as the last
 * full certification run decided it. `decidedAt` orders decisions: an older one arriving
 * late never overwrites a newer one.
 */
export type ChannelBadge = {
  /** `channelBadgeId(providerId, channel)` */
  _id: string;
  providerId: string;
  channel: Channel;
  certified: boolean;
  runId: string;
  railId: string;
  decidedAt: string;
};

export function channelBadgeId(providerId: string, channel: Channel): string {
  return [providerId, channel.network, channel.country, channel.currency].join('|');
}

/** Every channel a rail serves: each network, country and currency it declares. */
export function channelsOf(rail: Pick<Rail, 'networks' | 'countries' | 'currencies'>): Channel[] {
  return rail.networks.flatMap((network) =>
    rail.countries.flatMap((country) => rail.currencies.map((currency) => ({ network, country, currency }))),
  );
}

/** A rail carries the badge when every channel it serves is certified for its provider. */
export function railIsCertified(rail: Rail, certifiedIds: ReadonlySet<string>): boolean {
  return channelsOf(rail).every((channel) => certifiedIds.has(channelBadgeId(rail.providerId, channel)));
}

/** The channels of a rail still missing the badge, for a refused live activation. */
export function uncertifiedChannels(rail: Rail, certifiedIds: ReadonlySet<string>): Channel[] {
  return channelsOf(rail).filter((channel) => !certifiedIds.has(channelBadgeId(rail.providerId, channel)));
}

export function describeChannel(channel: Channel): string {
  return `${channel.network} ${channel.country} ${channel.currency}`;
}
