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
  it('detects the sandbox numbers', () => {
    expect(detectNetwork('+237690000001')).toBe('ORANGE_MONEY');
    expect(detectNetwork('+237670000001')).toBe('MTN_MOMO');
    expect(detectNetwork('+237690000002')).toBe('ORANGE_MONEY');
    expect(detectNetwork('+237690000003')).toBe('ORANGE_MONEY');
  });

  it('reads the Cameroon plan', () => {
    expect(detectNetwork('+237655123456')).toBe('ORANGE_MONEY');
    expect(detectNetwork('+237650123456')).toBe('MTN_MOMO');
    expect(detectNetwork('+237680123456')).toBe('MTN_MOMO');
    expect(detectNetwork('+237686123456')).toBe('ORANGE_MONEY');
    expect(detectOperator('+237661234567')).toBe('NEXTTEL');
    expect(detectNetwork('+237661234567')).toBeNull();
  });

  it("reads the Côte d'Ivoire plan", () => {
    expect(detectNetwork('+2250701020304')).toBe('ORANGE_MONEY');
    expect(detectNetwork('+2250501020304')).toBe('MTN_MOMO');
    expect(detectNetwork('+2250101020304')).toBe('MOOV_MONEY');
  });

  it('reads the Senegal plan', () => {
    expect(detectNetwork('+221771234567')).toBe('ORANGE_MONEY');
    expect(detectNetwork('+221781234567')).toBe('ORANGE_MONEY');
    expect(detectOperator('+221761234567')).toBe('FREE');
    expect(detectOperator('+221701234567')).toBe('EXPRESSO');
  });

  it('returns null outside the plans', () => {
    expect(detectNetwork('+33612345678')).toBeNull();
    expect(detectNetwork('not a phone')).toBeNull();
  });
});

describe('phoneMatchesNetwork', () => {
  it('is true when the plan says the same operator', () => {
    expect(phoneMatchesNetwork('+237690000001', 'ORANGE_MONEY')).toBe(true);
    expect(phoneMatchesNetwork('+237670000001', 'MTN_MOMO')).toBe(true);
    expect(phoneMatchesNetwork('+2250101020304', 'MOOV_MONEY')).toBe(true);
  });

  it('is false when the plan says another operator', () => {
    expect(phoneMatchesNetwork('+237690000001', 'MTN_MOMO')).toBe(false);
    expect(phoneMatchesNetwork('+237670000001', 'ORANGE_MONEY')).toBe(false);
    expect(phoneMatchesNetwork('+221761234567', 'ORANGE_MONEY')).toBe(false);
    expect(phoneMatchesNetwork('+2250701020304', 'MOOV_MONEY')).toBe(false);
  });

  it('is true for Wave on any number, and when the plan does not know', () => {
    expect(phoneMatchesNetwork('+221761234567', 'WAVE')).toBe(true);
    expect(phoneMatchesNetwork('+2250701020304', 'WAVE')).toBe(true);
    expect(phoneMatchesNetwork('+237684123456', 'MTN_MOMO')).toBe(true);
    expect(phoneMatchesNetwork('+237684123456', 'ORANGE_MONEY')).toBe(true);
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
