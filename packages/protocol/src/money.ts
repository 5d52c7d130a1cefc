import { z } from 'zod';

/** XAF and XOF have no minor unit: API amounts are whole francs. */
export const Currency = z.enum(['XAF', 'XOF'], { error: 'currency must be XAF or XOF' });
export type Currency = z.infer<typeof Currency>;

export const MIN_AMOUNT = 100;
export const MAX_AMOUNT = 5_000_000;
export const AMOUNT_RANGE_MESSAGE = `amount must be an integer between ${MIN_AMOUNT} and ${MAX_AMOUNT}`;

export function isAmountInRange(francs: number): boolean {
  return Number.isSafeInteger(francs) && francs >= MIN_AMOUNT && francs <= MAX_AMOUNT;
}

/**
 * Protocol amounts: whole francs, optionally written with one or two zero decimals
 * ("5000", "5000.0", "5000.00"). No sign, exponent, spaces or leading zeros, so that one
 * amount has few spellings and "500000" can never be read as cents of "5000". Fifteen
 * digits at most keeps the value a safe integer.
 */
export const MAJOR_AMOUNT_PATTERN = /^(0|[1-9][0-9]{0,14})(\.0{1,2})?$/;
export const MAJOR_AMOUNT_MESSAGE =
  'amount must be a decimal string of whole francs in major units, e.g. "5000" or "5000.00"';

export type MajorAmountResult = { ok: true; francs: number } | { ok: false; message: string };

export function parseMajorAmount(value: unknown): MajorAmountResult {
  if (typeof value !== 'string') {
    return { ok: false, message: `${MAJOR_AMOUNT_MESSAGE}; got ${value === null ? 'null' : typeof value}` };
  }
  if (/^(0|[1-9][0-9]*)\.[0-9]*[1-9][0-9]*$/.test(value)) {
    return { ok: false, message: 'amount must not contain a fraction of a franc' };
  }
  const match = MAJOR_AMOUNT_PATTERN.exec(value);
  if (!match) return { ok: false, message: MAJOR_AMOUNT_MESSAGE };
  return { ok: true, francs: Number(match[1]) };
}

export function formatMajorAmount(francs: number): string {
  if (!Number.isSafeInteger(francs) || francs < 0)
    throw new RangeError(`not a whole, non-negative franc amount: ${francs}`);
  return String(francs);
}

/** True when a protocol amount means exactly the given francs ("5000.00" equals 5000). */
export function amountsEqual(decimal: string, francs: number): boolean {
  const parsed = parseMajorAmount(decimal);
  return parsed.ok && parsed.francs === francs;
}

/** A JSON number is refused on purpose: floats are how cents and rounding errors sneak in. */
export const MajorAmountString = z.string({ error: MAJOR_AMOUNT_MESSAGE }).regex(MAJOR_AMOUNT_PATTERN, {
  error: (issue) => {
    const parsed = parseMajorAmount(issue.input);
    return parsed.ok ? MAJOR_AMOUNT_MESSAGE : parsed.message;
  },
});
export type MajorAmountString = z.infer<typeof MajorAmountString>;
