import { describe, expect, it } from 'vitest';
import {
  PREFIX_PLANS,
  SUPPORTED_COUNTRIES,
  formatPhone,
  normalizePhone,
  phoneMatchesNetwork,
  type Network,
} from '@mmp/protocol';
import { NUMBERING, pagePhonePlan } from './phone-plan.js';

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

  it('groups the digits of every mobile number as the API formats them', () => {
    for (const country of SUPPORTED_COUNTRIES) {
      const { code, length, groups } = NUMBERING[country];
      for (const { prefix } of PREFIX_PLANS[country]) {
        const national = prefix.padEnd(length, '0');
        const formatted = formatPhone(`+${code}${national}`);
        expect(formatted, `${country} ${prefix}`).toBe(`+${code} ${groupDigits(national, groups)}`);
      }
    }
  });
});

function groupDigits(digits: string, groups: number[]): string {
  let at = 0;
  return groups.map((size) => digits.slice(at, (at += size))).join(' ');
}
