import { describe, expect, it } from 'vitest';
import { channelBadgeId, channelsOf, railBadge, uncertifiedChannels } from './certification.js';
import { activationRefusal, type Rail } from './rail.js';

const rail = (): Pick<Rail, 'providerId' | 'networks' | 'countries' | 'currencies'> => ({
  providerId: 'prv_1',
  networks: ['ORANGE_MONEY', 'MTN_MOMO'],
  countries: ['CM'],
  currencies: ['XAF'],
});
const orange = { network: 'ORANGE_MONEY', country: 'CM', currency: 'XAF' } as const;
const mtn = { network: 'MTN_MOMO', country: 'CM', currency: 'XAF' } as const;

describe('channel badges', () => {
  it('a rail serves every network, country and currency it declares, and carries the badge when all are certified', () => {
    const served = rail();
    expect(channelsOf(served)).toEqual([orange, mtn]);
    const one = new Set([channelBadgeId('prv_1', orange)]);
    expect(railBadge(served, one)).toEqual({ certified: false, certifiedChannels: [orange] });
    expect(railBadge(served, new Set([...one, channelBadgeId('prv_1', mtn)]))).toEqual({
      certified: true,
      certifiedChannels: [orange, mtn],
    });
    // Another provider's badge on the same channel is not this provider's.
    expect(railBadge(served, new Set([channelBadgeId('prv_2', orange)])).certifiedChannels).toEqual([]);
  });

  it('refuses a live rail on an uncertified channel, naming it', () => {
    const served = rail();
    const missing = uncertifiedChannels(served, new Set([channelBadgeId('prv_1', orange)]));
    expect(missing).toEqual([mtn]);
    const refusal = activationRefusal(
      { status: 'TESTED', environment: 'live', certified: false, lastTest: null },
      ['MTN_MOMO CM XAF'],
    );
    expect(refusal).toContain('Not certified: MTN_MOMO CM XAF');
    expect(
      activationRefusal({ status: 'TESTED', environment: 'live', certified: true, lastTest: null }),
    ).toBeNull();
  });
});
