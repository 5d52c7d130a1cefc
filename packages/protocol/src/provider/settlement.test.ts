import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../zod-errors.js';
import { SettlementEvent, isProtocolPayload, settlementEventJsonSchema } from './settlement.js';

const valid = {
  protocol_version: '1',
  idempotency_key: 'stl_001',
  transaction_ref: 'OM-2025-000123',
  amount: '5000',
  currency: 'XAF',
  status: 'COMPLETED',
  network: 'ORANGE_MONEY',
  settled_at: '2025-01-31T12:00:00+01:00',
};

describe('SettlementEvent v1', () => {
  it('accepts each status and offset forms', () => {
    for (const status of ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REFUNDED'])
      expect(SettlementEvent.safeParse({ ...valid, status }).success).toBe(true);
    for (const settled_at of [
      '2025-01-31T12:00:00Z',
      '2025-01-31T12:00:00.123Z',
      '2025-01-31T12:00:00-05:30',
    ]) {
      expect(SettlementEvent.safeParse({ ...valid, settled_at }).success).toBe(true);
    }
    expect(SettlementEvent.safeParse({ ...valid, amount: '5000.00' }).success).toBe(true);
  });

  it.each([
    ['protocol_version', 1],
    ['protocol_version', '2'],
    ['idempotency_key', ''],
    ['transaction_ref', ''],
    ['amount', 5000],
    ['amount', '5000.50'],
    ['amount', '-5000'],
    ['currency', 'CFAF'],
    ['currency', 'xaf'],
    ['status', 'SUCCESS'],
    ['network', 'AIRTEL_MONEY'],
    ['settled_at', '2025-01-31 12:00:00'],
    ['settled_at', '31/01/2025'],
    ['settled_at', 1738324800],
  ])('rejects a bad %s naming it', (field, value) => {
    const result = SettlementEvent.safeParse({ ...valid, [field]: value });
    expect(fieldErrors(result.error!).map((f) => f.field)).toEqual([field]);
  });

  it('gives one error per bad field, and names an unknown field', () => {
    const result = SettlementEvent.safeParse({
      ...valid,
      amount: 5000,
      status: 'DONE',
      settled_at: 'yesterday',
      fee: '10',
    });
    expect(fieldErrors(result.error!)).toEqual([
      { field: 'amount', message: expect.stringMatching(/decimal string/) },
      { field: 'status', message: expect.stringMatching(/PENDING, COMPLETED/) },
      { field: 'settled_at', message: expect.stringMatching(/ISO 8601/) },
      { field: 'fee', message: 'unknown field' },
    ]);
  });

  it('names every missing field', () => {
    const result = SettlementEvent.safeParse({ protocol_version: '1' });
    const missing = Object.keys(SettlementEvent.shape).filter((field) => field !== 'protocol_version');
    expect(fieldErrors(result.error!).map((f) => f.field)).toEqual(missing);
  });

  it('isProtocolPayload routes on protocol_version', () => {
    expect(isProtocolPayload(valid)).toBe(true);
    expect(isProtocolPayload({ protocol_version: 'x' })).toBe(true);
    expect(isProtocolPayload({ status: 'SUCCESS' })).toBe(false);
    expect(isProtocolPayload(null)).toBe(false);
    expect(isProtocolPayload([])).toBe(false);
  });
});

describe('settlementEventJsonSchema', () => {
  const schema = settlementEventJsonSchema();

  it('covers the eight fields, enumerations and constraints', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.additionalProperties).toBe(false);
    expect([...(schema.required as string[])].sort()).toEqual([
      'amount',
      'currency',
      'idempotency_key',
      'network',
      'protocol_version',
      'settled_at',
      'status',
      'transaction_ref',
    ]);
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.status?.enum).toEqual(['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REFUNDED']);
    expect(props.network?.enum).toEqual(['ORANGE_MONEY', 'MTN_MOMO', 'WAVE', 'MOOV_MONEY']);
    expect(props.protocol_version?.const).toBe('1');
    expect(props.amount?.pattern).toBeTypeOf('string');
    expect(props.settled_at?.format).toBe('date-time');
  });

  it('agrees with zod on a corpus', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    const corpus: unknown[] = [
      valid,
      { ...valid, amount: '5000.00' },
      { ...valid, settled_at: '2025-01-31T12:00:00Z' },
      { ...valid, status: 'REFUNDED', network: 'WAVE', currency: 'XOF' },
      { ...valid, amount: 5000 },
      { ...valid, amount: '5000.5' },
      { ...valid, amount: '05000' },
      { ...valid, amount: '5e3' },
      { ...valid, status: 'SUCCESS' },
      { ...valid, network: 'AIRTEL' },
      { ...valid, protocol_version: 1 },
      { ...valid, currency: 'xaf' },
      { ...valid, idempotency_key: '' },
      { ...valid, transaction_ref: 'x'.repeat(256) },
      { ...valid, settled_at: '2025-01-31' },
      { ...valid, settled_at: '2025-01-31T12:00:00' },
      { ...valid, extra: true },
      (({ network: _n, ...rest }) => rest)(valid),
      [],
      'text',
      null,
    ];
    for (const sample of corpus) {
      expect({ sample, ajv: validate(sample) }).toEqual({
        sample,
        ajv: SettlementEvent.safeParse(sample).success,
      });
    }
  });
});
