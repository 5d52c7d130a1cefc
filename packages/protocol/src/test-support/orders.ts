/** A payment.execute order as a provider's adapter receives it. */
export const paymentExecute = {
  protocol_version: '1',
  type: 'payment.execute',
  idempotency_key: 'pexec_AbCdEfGhIjKlMnOpQrStUvWx',
  amount: '5000',
  currency: 'XAF',
  network: 'ORANGE_MONEY',
  country: 'CM',
  payee: { msisdn: '+237690000001' },
  transaction_ref: 'pay_AbCdEfGhIjKlMnOpQrStUvWx',
  timestamp: 1_700_000_000,
};
