import type { Network, SupportedCountry } from './network.js';

/** Operators of a numbering plan; some (Nexttel, Free…) carry no wallet we route to. */
export type Operator = Network | 'NEXTTEL' | 'CAMTEL' | 'FREE' | 'EXPRESSO' | 'PROMOBILE';

export interface PrefixRule {
  /** Leading digits of the national significant number. */
  prefix: string;
  operator: Operator;
}

/**
 * Mobile prefix plans as data. Regulators (ART in Cameroon, ARTCI in Côte d'Ivoire, ARTP
 * in Senegal) reassign blocks every few years and number portability blurs them, so a
 * prefix we do not list is "unknown", never "wrong": only a listed prefix of another
 * operator refuses a network. Update this table when a regulator publishes a new plan.
 * Longest prefix wins.
 */
export const PREFIX_PLANS: Readonly<Record<SupportedCountry, readonly PrefixRule[]>> = {
  // Cameroon, 9 digits, mobiles start with 6.
  CM: [
    { prefix: '69', operator: 'ORANGE_MONEY' },
    { prefix: '655', operator: 'ORANGE_MONEY' },
    { prefix: '656', operator: 'ORANGE_MONEY' },
    { prefix: '657', operator: 'ORANGE_MONEY' },
    { prefix: '658', operator: 'ORANGE_MONEY' },
    { prefix: '659', operator: 'ORANGE_MONEY' },
    { prefix: '640', operator: 'ORANGE_MONEY' },
    { prefix: '686', operator: 'ORANGE_MONEY' },
    { prefix: '687', operator: 'ORANGE_MONEY' },
    { prefix: '688', operator: 'ORANGE_MONEY' },
    { prefix: '689', operator: 'ORANGE_MONEY' },
    { prefix: '67', operator: 'MTN_MOMO' },
    { prefix: '650', operator: 'MTN_MOMO' },
    { prefix: '651', operator: 'MTN_MOMO' },
    { prefix: '652', operator: 'MTN_MOMO' },
    { prefix: '653', operator: 'MTN_MOMO' },
    { prefix: '654', operator: 'MTN_MOMO' },
    { prefix: '680', operator: 'MTN_MOMO' },
    { prefix: '681', operator: 'MTN_MOMO' },
    { prefix: '682', operator: 'MTN_MOMO' },
    { prefix: '683', operator: 'MTN_MOMO' },
    { prefix: '66', operator: 'NEXTTEL' },
    { prefix: '62', operator: 'CAMTEL' },
  ],
  // Côte d'Ivoire, 10 digits since 2021: the first two digits name the operator.
  CI: [
    { prefix: '07', operator: 'ORANGE_MONEY' },
    { prefix: '05', operator: 'MTN_MOMO' },
    { prefix: '01', operator: 'MOOV_MONEY' },
  ],
  // Senegal, 9 digits.
  SN: [
    { prefix: '77', operator: 'ORANGE_MONEY' },
    { prefix: '78', operator: 'ORANGE_MONEY' },
    { prefix: '76', operator: 'FREE' },
    { prefix: '70', operator: 'EXPRESSO' },
    { prefix: '75', operator: 'PROMOBILE' },
  ],
};

/** Which wallets a payer can use per country and currency (Wave has no prefix of its own). */
export const COUNTRY_NETWORKS: Readonly<
  Record<SupportedCountry, { currency: 'XAF' | 'XOF'; networks: readonly Network[] }>
> = {
  CM: { currency: 'XAF', networks: ['ORANGE_MONEY', 'MTN_MOMO'] },
  CI: { currency: 'XOF', networks: ['ORANGE_MONEY', 'MTN_MOMO', 'MOOV_MONEY', 'WAVE'] },
  SN: { currency: 'XOF', networks: ['ORANGE_MONEY', 'WAVE'] },
};
