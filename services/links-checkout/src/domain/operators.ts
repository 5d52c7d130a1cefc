import {
  appError,
  formatPhone,
  networksFor,
  normalizePhone,
  phoneMatchesNetwork,
  validationMessage,
  type Network,
} from '@mmp/protocol';

/**
 * A session names a currency, not a country: XAF is paid from Cameroon, XOF from Côte
 * d'Ivoire or Senegal. The payer's number then tells which country it is.
 */
export const COUNTRIES_BY_CURRENCY: Record<string, string[]> = { XAF: ['CM'], XOF: ['CI', 'SN'] };

/** A number of the right shape for each wallet, shown (grouped) as a hint next to the phone field. */
const EXAMPLES: Record<string, Partial<Record<Network, string>>> = {
  XAF: { ORANGE_MONEY: '+237690000001', MTN_MOMO: '+237670000001' },
  XOF: {
    ORANGE_MONEY: '+2250700000000',
    MTN_MOMO: '+2250500000000',
    MOOV_MONEY: '+2250100000000',
    WAVE: '+221770000000',
  },
};

export function operatorsFor(currency: string): Network[] {
  const networks = new Set<Network>();
  for (const country of COUNTRIES_BY_CURRENCY[currency] ?? [])
    for (const n of networksFor(country, currency)) networks.add(n);
  return [...networks];
}

export function exampleNumber(currency: string, network: Network): string {
  return formatPhone(EXAMPLES[currency]?.[network] ?? '+237690000001');
}

/** The default country for numbers typed without their country code. */
export function defaultCountry(currency: string): string | undefined {
  return COUNTRIES_BY_CURRENCY[currency]?.[0];
}

const invalidPhone = (message: string) => appError('invalid_phone', message, [{ field: 'phone', message }]);

/** The payer's number in E.164, refused unless it can pay this currency with this operator. */
export function payerPhone(currency: string, network: Network, raw: string): string {
  if (!operatorsFor(currency).includes(network)) {
    const fields = [{ field: 'paymentMethod', message: `${network} is not available for ${currency}` }];
    throw appError('validation_error', validationMessage(fields), fields);
  }
  const phone = normalizePhone(raw, defaultCountry(currency));
  if (!phone) throw invalidPhone('phone is not a valid phone number.');
  const countries = COUNTRIES_BY_CURRENCY[currency] ?? [];
  if (!countries.includes(phone.country) || !networksFor(phone.country, currency).includes(network)) {
    throw invalidPhone(`This number cannot pay in ${currency} with ${network}.`);
  }
  if (!phoneMatchesNetwork(phone.e164, network))
    throw invalidPhone(`This number does not belong to ${network}.`);
  return phone.e164;
}
