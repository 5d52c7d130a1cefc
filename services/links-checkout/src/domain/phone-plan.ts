import { PREFIX_PLANS, SUPPORTED_COUNTRIES, networksFor, type SupportedCountry } from '@mmp/protocol';
import { COUNTRIES_BY_CURRENCY, defaultCountry } from './operators.js';

/**
 * Calling code, length of national significant numbers and digit groups of each country's
 * mobile plan. The groups are how libphonenumber formats a number of the plan (the test
 * checks them against it), so the page shows a typed number as the server formats it; as
 * data here, the page costs links-checkout no libphonenumber (4 MB of RSS) before a payer pays.
 */
export const NUMBERING: Record<SupportedCountry, { code: string; length: number; groups: number[] }> = {
  CM: { code: '237', length: 9, groups: [1, 2, 2, 2, 2] },
  CI: { code: '225', length: 10, groups: [2, 2, 2, 4] },
  SN: { code: '221', length: 9, groups: [2, 3, 2, 2] },
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
