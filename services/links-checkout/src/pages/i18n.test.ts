import { describe, expect, it } from 'vitest';
import { chooseLang, formatAmount, MESSAGES } from './i18n.js';

describe('language choice', () => {
  it('prefers ?lang, then the best-ranked supported browser language, then French', () => {
    expect(chooseLang('en', 'fr')).toBe('en');
    expect(chooseLang(undefined, 'de;q=1, en-US;q=0.8, fr;q=0.5')).toBe('en');
    expect(chooseLang('xx', 'fr-CM')).toBe('fr');
    expect(chooseLang(undefined, undefined)).toBe('fr');
  });

  it('has every message in both languages', () => {
    expect(Object.keys(MESSAGES.fr).sort()).toEqual(Object.keys(MESSAGES.en).sort());
  });

  it('formats whole francs the way each language groups digits', () => {
    expect(formatAmount(5000, 'XAF', 'en')).toBe('5,000 FCFA');
    expect(formatAmount(5000, 'XOF', 'fr')).toMatch(/^5\s000 FCFA$/u);
  });
});
