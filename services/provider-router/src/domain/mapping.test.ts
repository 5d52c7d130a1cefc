import { describe, expect, it } from 'vitest';
import { ProprietaryMapping, applyMapping } from './mapping.js';

const mapping = ProprietaryMapping.parse({
  fields: {
    idempotency_key: 'k',
    transaction_ref: 'r',
    amount: 'a',
    currency: 'c',
    status: 's',
    network: 'n',
    settled_at: 't',
  },
  statusMap: { OK: 'COMPLETED' },
  amountUnit: 'minor',
});

describe('applyMapping', () => {
  it('maps paths, statuses, minor amounts and Unix timestamps onto a SettlementEvent candidate', () => {
    const { candidate } = applyMapping(mapping, {
      k: 'key',
      r: 77,
      a: 500000,
      c: 'XAF',
      s: 'OK',
      n: 'WAVE',
      t: 1738320000,
    });
    expect(candidate).toEqual({
      protocol_version: '1',
      idempotency_key: 'key',
      transaction_ref: '77',
      amount: '5000',
      currency: 'XAF',
      status: 'COMPLETED',
      network: 'WAVE',
      settled_at: '2025-01-31T10:40:00.000Z',
    });
  });

  it('leaves what it cannot map for the schema to name', () => {
    const { candidate } = applyMapping(mapping, { a: 500050, s: 'WHAT' });
    expect(candidate).toMatchObject({
      amount: '500050 (minor units, not whole francs)',
      status: 'WHAT',
      idempotency_key: undefined,
    });
  });

  it('requires a path or a constant for every field', () => {
    const result = ProprietaryMapping.safeParse({ fields: { amount: 'a' } });
    expect(result.success).toBe(false);
  });
});
