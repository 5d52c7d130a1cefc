import type { Network, SupportedCountry } from './network.js';

/** Operators of a numbering plan; some (Nexttel, Free…) carry no wallet we route to. */
export type Operator = Network | 'NEXTTEL' | 'CAMTEL' | 'FREE' | 'EXPRESSO' | 'PROMOBILE';

export interface PrefixRule {
  /** Leading digits of the national significant number. */
  prefix: string;
  operator: Operator;
}

/** A country's plan as regulators publish it: each operator with its prefixes. */
function plan(prefixesByOperator: Partial<Record<Operator, readonly string[]>>): PrefixRule[] {
  return Object.entries(prefixesByOperator).flatMap(([operator, prefixes]) =>
    prefixes.map((prefix) => ({ prefix, operator: operator as Operator })),
  );
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
  CM: plan({
    ORANGE_MONEY: ['69', '655', '656', '657', '658', '659', '640', '686', '687', '688', '689'],
    MTN_MOMO: ['67', '650', '651', '652', '653', '654', '680', '681', '682', '683'],
    NEXTTEL: ['66'],
    CAMTEL: ['62'],
  }),
  // Côte d'Ivoire, 10 digits since 2021: the first two digits name the operator.
  CI: plan({ ORANGE_MONEY: ['07'], MTN_MOMO: ['05'], MOOV_MONEY: ['01'] }),
  // Senegal, 9 digits.
  SN: plan({ ORANGE_MONEY: ['77', '78'], FREE: ['76'], EXPRESSO: ['70'], PROMOBILE: ['75'] }),
};

/** Which wallets a payer can use per country and currency (Wave has no prefix of its own). */
export const COUNTRY_NETWORKS: Readonly<
  Record<SupportedCountry, { currency: 'XAF' | 'XOF'; networks: readonly Network[] }>
> = {
  CM: { currency: 'XAF', networks: ['ORANGE_MONEY', 'MTN_MOMO'] },
  CI: { currency: 'XOF', networks: ['ORANGE_MONEY', 'MTN_MOMO', 'MOOV_MONEY', 'WAVE'] },
  SN: { currency: 'XOF', networks: ['ORANGE_MONEY', 'WAVE'] },
};
