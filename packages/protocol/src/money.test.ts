import { describe, expect, it } from 'vitest';
import {
  Currency,
  MajorAmountString,
  amountsEqual,
  formatMajorAmount,
  isAmountInRange,
  parseMajorAmount,
} from './money.js';

describe('parseMajorAmount', () => {
  it.each([
    ['5000', 5000],
    ['5000.0', 5000],
    ['5000.00', 5000],
    ['0', 0],
    ['100', 100],
    ['5000000', 5_000_000],
  ])('accepts %s', (value, francs) => {
    expect(parseMajorAmount(value)).toEqual({ ok: true, francs });
  });

  it.each([
    ['5000.50', /fraction of a franc/],
    ['5000.05', /fraction/],
    ['0.5', /fraction/],
    ['+5000', /decimal string/],
    ['-5', /decimal string/],
    ['5e3', /decimal string/],
    [' 5000', /decimal string/],
    ['5000 ', /decimal string/],
    ['', /decimal string/],
    ['05000', /decimal string/],
    ['00', /decimal string/],
    ['5000.', /decimal string/],
    ['.5', /decimal string/],
    ['5,000', /decimal string/],
    ['5000.000', /decimal string/],
    ['0x10', /decimal string/],
    ['Infinity', /decimal string/],
    ['1234567890123456', /decimal string/],
  ])('rejects %j', (value, message) => {
    const result = parseMajorAmount(value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it.each([[5000], [5000.5], [null], [undefined], [{}], [['5000']], [true]])(
    'rejects non-strings (%j)',
    (value) => {
      expect(parseMajorAmount(value).ok).toBe(false);
    },
  );
});

describe('formatMajorAmount and amountsEqual', () => {
  it('formats whole francs', () => {
    expect(formatMajorAmount(5000)).toBe('5000');
    expect(formatMajorAmount(0)).toBe('0');
    expect(() => formatMajorAmount(1.5)).toThrow(RangeError);
    expect(() => formatMajorAmount(-1)).toThrow(RangeError);
  });

  it('compares decimal strings with francs', () => {
    expect(amountsEqual('5000', 5000)).toBe(true);
    expect(amountsEqual('5000.00', 5000)).toBe(true);
    expect(amountsEqual('500000', 5000)).toBe(false); // cents
    expect(amountsEqual('50.00', 5000)).toBe(false);
    expect(amountsEqual('5000.50', 5000)).toBe(false);
  });

  it('checks the API range', () => {
    expect(isAmountInRange(100)).toBe(true);
    expect(isAmountInRange(5_000_000)).toBe(true);
    expect(isAmountInRange(99)).toBe(false);
    expect(isAmountInRange(5_000_001)).toBe(false);
    expect(isAmountInRange(100.5)).toBe(false);
  });
});

describe('MajorAmountString and Currency', () => {
  it('validates like parseMajorAmount, with a message naming the rule', () => {
    expect(MajorAmountString.parse('5000.00')).toBe('5000.00');
    expect(MajorAmountString.safeParse(5000).error?.issues[0]?.message).toMatch(/decimal string/);
    expect(MajorAmountString.safeParse('5000.50').error?.issues[0]?.message).toMatch(/fraction of a franc/);
  });

  it('accepts XAF and XOF only', () => {
    expect(Currency.parse('XAF')).toBe('XAF');
    expect(Currency.parse('XOF')).toBe('XOF');
    expect(Currency.safeParse('EUR').error?.issues[0]?.message).toBe('currency must be XAF or XOF');
    expect(Currency.safeParse('xaf').success).toBe(false);
  });
});
