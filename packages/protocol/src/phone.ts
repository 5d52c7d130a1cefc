import { createRequire } from 'node:module';
import type { CountryCode, PhoneNumber, parsePhoneNumberFromString } from 'libphonenumber-js';
import { z } from 'zod';
import { NETWORKS, SUPPORTED_COUNTRIES, type Network, type SupportedCountry } from './network.js';
import { COUNTRY_NETWORKS, PREFIX_PLANS, type Operator } from './phone-plans.js';

type Parse = typeof parsePhoneNumberFromString;
let parse: Parse | undefined;

/**
 * libphonenumber-js, loaded on the first number parsed: with its metadata it is 3 MB of
 * every process importing this package, and only payments and links-checkout read phone
 * numbers. Its CommonJS build, so that loading stays synchronous like the functions here.
 */
function loadParser(): Parse {
  const library = createRequire(import.meta.url)('libphonenumber-js') as {
    parsePhoneNumberFromString: Parse;
  };
  return library.parsePhoneNumberFromString;
}

function parsePhoneNumber(text: string, defaultCountry?: CountryCode): PhoneNumber | undefined {
  parse ??= loadParser();
  return parse(text, defaultCountry);
}

export const E164 = z
  .string()
  .regex(/^\+[1-9][0-9]{6,14}$/, 'must be an E.164 phone number, e.g. +237690000001');
export type E164 = z.infer<typeof E164>;

export interface NormalizedPhone {
  e164: string;
  /** ISO 3166-1 alpha-2, e.g. CM. */
  country: string;
}

function isSupportedCountry(country: string | undefined): country is SupportedCountry {
  return (SUPPORTED_COUNTRIES as readonly string[]).includes(country ?? '');
}

/**
 * Normalises what a payer types ('+237 6 90 00 00 01', '237690000001', '690000001' with
 * CM as default) to E.164, or null when the number is not valid for its country.
 */
export function normalizePhone(input: string, defaultCountry?: string): NormalizedPhone | null {
  const text = input.trim();
  if (text.length === 0 || text.length > 32) return null;
  const country = defaultCountry as CountryCode | undefined;
  const attempts = [parsePhoneNumber(text, country)];
  // An international number typed without its '+' (or '00') is common on mobile pages.
  const digits = text.replace(/[\s.()-]/g, '');
  if (/^[0-9]+$/.test(digits)) {
    attempts.push(parsePhoneNumber(`+${digits.replace(/^00/, '')}`));
  }
  for (const parsed of attempts) {
    if (parsed?.isValid() && parsed.country) return { e164: parsed.number, country: parsed.country };
  }
  return null;
}

/**
 * An E.164 number as a payer reads it, grouped the way its country writes it
 * (`+237 6 90 00 00 01`, `+225 07 07 07 0707`, `+221 77 123 45 67`); anything that does not
 * parse is returned as it is.
 */
export function formatPhone(e164: string): string {
  return parsePhoneNumber(e164)?.formatInternational() ?? e164;
}

function nationalNumber(e164: string): { country: SupportedCountry; national: string } | null {
  const parsed = parsePhoneNumber(e164);
  if (!parsed || !isSupportedCountry(parsed.country)) return null;
  return { country: parsed.country, national: parsed.nationalNumber };
}

/** The operator a number belongs to by its country's plan; null when the plan does not say. */
export function detectOperator(e164: string): Operator | null {
  const number = nationalNumber(e164);
  if (!number) return null;
  let best: { prefix: string; operator: Operator } | null = null;
  for (const rule of PREFIX_PLANS[number.country]) {
    if (number.national.startsWith(rule.prefix) && (!best || rule.prefix.length > best.prefix.length))
      best = rule;
  }
  return best?.operator ?? null;
}

export function detectNetwork(e164: string): Network | null {
  const operator = detectOperator(e164);
  return (NETWORKS as readonly string[]).includes(operator ?? '') ? (operator as Network) : null;
}

/**
 * False only when the plan names another operator for the number. Wave runs on any
 * number, and an unlisted prefix is not proof of a mismatch (portability, new blocks).
 */
export function phoneMatchesNetwork(e164: string, network: Network): boolean {
  if (network === 'WAVE') return true;
  const operator = detectOperator(e164);
  return operator === null || operator === network;
}

/** Networks a payer may choose in a country for a currency; empty when we do not serve it. */
export function networksFor(country: string, currency: string): Network[] {
  if (!isSupportedCountry(country)) return [];
  const entry = COUNTRY_NETWORKS[country];
  return entry.currency === currency ? [...entry.networks] : [];
}
