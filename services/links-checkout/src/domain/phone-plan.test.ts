import { describe, expect, it } from 'vitest';
import { normalizePhone, phoneMatchesNetwork, type Network } from '@mmp/protocol';
import { pagePhonePlan } from './phone-plan.js';

describe("the page's phone plan", () => {
  it('offers the networks and countries the API accepts for each currency', () => {
    const xaf = pagePhonePlan('XAF');
    expect(xaf.home).toBe('CM');
    expect(xaf.countries.map((c) => [c.country, c.networks])).toEqual([['CM', ['ORANGE_MONEY', 'MTN_MOMO']]]);
    const xof = pagePhonePlan('XOF');
    expect(xof.home).toBe('CI');
    expect(xof.countries.map((c) => c.country)).toEqual(['CI', 'SN']);
    expect(pagePhonePlan('EUR')).toEqual({ home: null, countries: [] });
  });

  it('agrees with the API on calling codes, lengths and who owns each listed prefix', () => {
    for (const currency of ['XAF', 'XOF']) {
      const plan = pagePhonePlan(currency);
      for (const country of plan.countries) {
        for (const [prefix, operator] of country.prefixes) {
          const national = prefix.padEnd(country.length, '1');
          const e164 = `+${country.code}${national}`;
          expect(normalizePhone(e164), e164).toEqual({ e164, country: country.country });
          if (country.country === plan.home)
            expect(normalizePhone(national, plan.home)?.e164, national).toBe(e164);
          for (const network of country.networks.filter((n) => n !== 'WAVE'))
            expect(phoneMatchesNetwork(e164, network as Network), `${e164} ${network}`).toBe(
              operator === network,
            );
        }
      }
    }
  });
});
