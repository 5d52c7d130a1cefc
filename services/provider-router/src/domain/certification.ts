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

/** The rail's badge: its certified channels, and whether that is every channel it serves. */
export function railBadge(
  rail: Pick<Rail, 'providerId' | 'networks' | 'countries' | 'currencies'>,
  certifiedIds: ReadonlySet<string>,
): { certified: boolean; certifiedChannels: Channel[] } {
  const channels = channelsOf(rail);
  const certifiedChannels = channels.filter((channel) =>
    certifiedIds.has(channelBadgeId(rail.providerId, channel)),
  );
  return { certified: certifiedChannels.length === channels.length, certifiedChannels };
}

/** Whether the rail's channel for an order carries the badge: routing prefers it. */
export function certifiedFor(
  rail: Pick<Rail, 'certifiedChannels'>,
  channel: { network: string; country: string; currency: string },
): boolean {
  return (rail.certifiedChannels ?? []).some(
    (entry) =>
      entry.network === channel.network &&
      entry.country === channel.country &&
      entry.currency === channel.currency,
  );
}

/** The channels of a rail still missing the badge, for a refused live activation. */
export function uncertifiedChannels(
  rail: Pick<Rail, 'providerId' | 'networks' | 'countries' | 'currencies'>,
  certifiedIds: ReadonlySet<string>,
): Channel[] {
  return channelsOf(rail).filter((channel) => !certifiedIds.has(channelBadgeId(rail.providerId, channel)));
}

export function describeChannel(channel: Channel): string {
  return `${channel.network} ${channel.country} ${channel.currency}`;
}
