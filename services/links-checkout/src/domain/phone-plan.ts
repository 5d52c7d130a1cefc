import {
  PREFIX_PLANS,
  SUPPORTED_COUNTRIES,
  formatPhone,
  networksFor,
  type SupportedCountry,
} from '@mmp/protocol';
import { COUNTRIES_BY_CURRENCY, defaultCountry } from './operators.js';

/** Calling code and length of national significant numbers of each country's mobile plan. */
const NUMBERING: Record<SupportedCountry, { code: string; length: number }> = {
  CM: { code: '237', length: 9 },
  CI: { code: '225', length: 10 },
  SN: { code: '221', length: 9 },
};

export type PagePhoneCountry = {
  country: string;
  code: string;
  length: number;
  networks: string[];
  /** `[prefix, operator]` of the protocol's plan; the longest matching prefix names the operator. */
  prefixes: [string, string][];
  /** Digits per group when the page shows a national number (`[1, 2, 2, 2, 2]`: 6 90 00 00 01). */
  groups: number[];
};

/**
 * How the country groups a mobile number's digits, read off libphonenumber's formatting of a
 * number of its plan, so the page shows a typed number as the server formats it.
 */
function digitGroups(country: SupportedCountry): number[] {
  const { code, length } = NUMBERING[country];
  const prefix = PREFIX_PLANS[country][0]?.prefix ?? '';
  const formatted = formatPhone(`+${code}${prefix}${'0'.repeat(length - prefix.length)}`);
  return formatted
    .split(' ')
    .slice(1)
    .map((group) => group.length);
}

/**
 * What the page needs to check a number the way the API will, as plain data for its script:
 * the countries that pay in the currency, their plans, and `home`, whose national numbers
 * may be typed without the country code (the API reads them in the currency's default country).
 */
export type PagePhonePlan = { home: string | null; countries: PagePhoneCountry[] };

const isSupported = (country: string): country is SupportedCountry =>
  (SUPPORTED_COUNTRIES as readonly string[]).includes(country);

function buildPhonePlan(currency: string): PagePhonePlan {
  const countries = (COUNTRIES_BY_CURRENCY[currency] ?? []).filter(isSupported).map((country) => ({
    country,
    ...NUMBERING[country],
    networks: networksFor(country, currency),
    prefixes: PREFIX_PLANS[country].map((rule): [string, string] => [rule.prefix, rule.operator]),
    groups: digitGroups(country),
  }));
  return { home: defaultCountry(currency) ?? null, countries };
}

// A plan depends on the currency alone: built once per currency, not on every page view.
const PLANS = new Map(
  Object.keys(COUNTRIES_BY_CURRENCY).map((currency) => [currency, buildPhonePlan(currency)]),
);

export function pagePhonePlan(currency: string): PagePhonePlan {
  return PLANS.get(currency) ?? buildPhonePlan(currency);
}
