import { describe, expect, it } from 'vitest';
import { Network } from './network.js';
import {
  E164,
  detectNetwork,
  detectOperator,
  formatPhone,
  networksFor,
  normalizePhone,
  phoneMatchesNetwork,
} from './phone.js';

describe('normalizePhone', () => {
  it.each([
    ['+237 6 90 00 00 01', undefined, '+237690000001', 'CM'],
    ['237690000001', undefined, '+237690000001', 'CM'],
    ['237690000001', 'CM', '+237690000001', 'CM'],
    ['690000001', 'CM', '+237690000001', 'CM'],
    ['00237690000001', undefined, '+237690000001', 'CM'],
    ['+237 67 00 00 001', undefined, '+237670000001', 'CM'],
    ['+225 07 01 02 03 04', undefined, '+2250701020304', 'CI'],
    ['0501020304', 'CI', '+2250501020304', 'CI'],
    ['+221 77 123 45 67', undefined, '+221771234567', 'SN'],
    ['771234567', 'SN', '+221771234567', 'SN'],
  ])('normalises %j (default %s)', (input, country, e164, expectedCountry) => {
    expect(normalizePhone(input, country)).toEqual({ e164, country: expectedCountry });
  });

  it.each([[''], ['   '], ['abc'], ['12'], ['+237 123'], ['690000001'], ['+2376900000011234']])(
    'refuses %j',
    (input) => {
      expect(normalizePhone(input)).toBeNull();
    },
  );

  it('normalises the sandbox numbers', () => {
    for (const n of ['+237690000001', '+237670000001', '+237690000002', '+237690000003']) {
      expect(normalizePhone(n)).toEqual({ e164: n, country: 'CM' });
      expect(E164.safeParse(n).success).toBe(true);
    }
  });
});

describe('detectNetwork', () => {
  it.each([
    ['+237690000001', 'ORANGE_MONEY'],
    ['+237670000001', 'MTN_MOMO'],
    ['+237690000002', 'ORANGE_MONEY'],
    ['+237690000003', 'ORANGE_MONEY'],
    ['+237655123456', 'ORANGE_MONEY'],
    ['+237650123456', 'MTN_MOMO'],
    ['+237680123456', 'MTN_MOMO'],
    ['+237686123456', 'ORANGE_MONEY'],
    ['+2250701020304', 'ORANGE_MONEY'],
    ['+2250501020304', 'MTN_MOMO'],
    ['+2250101020304', 'MOOV_MONEY'],
    ['+221771234567', 'ORANGE_MONEY'],
    ['+221781234567', 'ORANGE_MONEY'],
    // An operator of the plans without a mobile money network we serve.
    ['+237661234567', null],
    ['+33612345678', null],
    ['not a phone', null],
  ])('reads %s as %s', (phone, network) => {
    expect(detectNetwork(phone)).toBe(network);
  });

  it.each([
    ['+237661234567', 'NEXTTEL'],
    ['+221761234567', 'FREE'],
    ['+221701234567', 'EXPRESSO'],
  ])('names the operator of %s: %s', (phone, operator) => {
    expect(detectOperator(phone)).toBe(operator);
  });
});

describe('phoneMatchesNetwork', () => {
  it.each([
    ['+237690000001', 'ORANGE_MONEY', true],
    ['+237670000001', 'MTN_MOMO', true],
    ['+2250101020304', 'MOOV_MONEY', true],
    ['+237690000001', 'MTN_MOMO', false],
    ['+237670000001', 'ORANGE_MONEY', false],
    ['+221761234567', 'ORANGE_MONEY', false],
    ['+2250701020304', 'MOOV_MONEY', false],
    // Wave takes any number of its countries.
    ['+221761234567', 'WAVE', true],
    ['+2250701020304', 'WAVE', true],
    // A prefix the plan does not know refuses no network.
    ['+237684123456', 'MTN_MOMO', true],
    ['+237684123456', 'ORANGE_MONEY', true],
  ] as const)('%s on %s: %s', (phone, network, matches) => {
    expect(phoneMatchesNetwork(phone, network)).toBe(matches);
  });
});

describe('networksFor', () => {
  it('lists the wallets of a country and currency', () => {
    expect(networksFor('CM', 'XAF')).toEqual(['ORANGE_MONEY', 'MTN_MOMO']);
    expect(networksFor('CI', 'XOF')).toEqual(['ORANGE_MONEY', 'MTN_MOMO', 'MOOV_MONEY', 'WAVE']);
    expect(networksFor('SN', 'XOF')).toEqual(['ORANGE_MONEY', 'WAVE']);
    expect(networksFor('CM', 'XOF')).toEqual([]);
    expect(networksFor('FR', 'XAF')).toEqual([]);
  });

  it('only lists known networks', () => {
    for (const c of ['CM', 'CI', 'SN'])
      for (const n of networksFor(c, c === 'CM' ? 'XAF' : 'XOF')) expect(Network.options).toContain(n);
  });
});

describe('formatPhone', () => {
  it('groups a number the way its country writes it, and leaves what does not parse alone', () => {
    expect(formatPhone('+237690000001')).toBe('+237 6 90 00 00 01');
    expect(formatPhone('+2250707070707')).toBe('+225 07 07 07 0707');
    expect(formatPhone('+221771234567')).toBe('+221 77 123 45 67');
    expect(formatPhone('not a number')).toBe('not a number');
  });
});
