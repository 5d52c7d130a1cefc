/** A provider's proprietary settlement format: short field names and its own status word. */
export const SAMPLE_MAPPING = {
  fields: {
    idempotency_key: 'key',
    transaction_ref: 'ref',
    amount: 'amt',
    currency: 'ccy',
    status: 'st',
    network: 'net',
    settled_at: 'at',
  },
  statusMap: { OK: 'COMPLETED' },
};
