import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { SettlementEvent, providerPortalApi } from '@mmp/protocol';
import { ADMIN, providerActor, startRouter } from './harness.js';

const h = await startRouter();
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const valid = {
  protocol_version: '1',
  idempotency_key: 'pexec_abc',
  transaction_ref: 'OM-1',
  amount: '5000',
  currency: 'XAF',
  status: 'COMPLETED',
  network: 'ORANGE_MONEY',
  settled_at: '2025-01-31T12:00:00Z',
};

/** Each field broken in turn (missing, wrong type, bad value), extra fields, wrong root types. */
function corpus(): [string, unknown][] {
  const entries: [string, unknown][] = [
    ['valid', valid],
    [
      'valid with offset and decimals',
      { ...valid, settled_at: '2025-01-31T12:00:00.123+01:00', amount: '5000.00' },
    ],
    ['valid FAILED on MTN', { ...valid, status: 'FAILED', network: 'MTN_MOMO', currency: 'XOF' }],
    ['valid REFUNDED', { ...valid, status: 'REFUNDED', amount: '100.0' }],
    ['extra field', { ...valid, fee: '1' }],
    ['two extra fields', { ...valid, fee: '1', note: null }],
    ['array', [valid]],
    ['string', 'valid'],
    ['null', null],
    ['number', 5000],
    ['empty object', {}],
  ];
  const broken: Record<string, unknown[]> = {
    protocol_version: [1, '2', '', null],
    idempotency_key: ['', 42, 'x'.repeat(256), null],
    transaction_ref: ['', {}, null],
    amount: [5000, '50,00', '5000.5', '-5000', '1e3', '05000', ' 5000', null],
    currency: ['xaf', 'XA', 'XAFX', 1, null],
    status: ['DONE', 'completed', '', null],
    network: ['ORANGE', 'orange_money', 3, null],
    settled_at: ['2025-01-31', '2025-01-31T12:00:00', '31/01/2025', 1738320000, 'yesterday', null],
  };
  for (const [field, values] of Object.entries(broken)) {
    const { [field]: _removed, ...without } = valid as Record<string, unknown>;
    entries.push([`${field} missing`, without]);
    for (const value of values)
      entries.push([`${field} = ${JSON.stringify(value)}`, { ...valid, [field]: value }]);
  }
  return entries;
}

describe('protocol-v1 JSON Schema', () => {
  it('is served to providers as draft 2020-12 covering the eight fields', async () => {
    const provider = await h.createProvider();
    const reply = await h.call(providerPortalApi.protocolSchema, {}, providerActor(provider.id));
    const schema = reply.body as {
      $schema: string;
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(valid).sort());
    expect(schema.required.sort()).toEqual(Object.keys(valid).sort());
    expect(schema.additionalProperties).toBe(false);
    expect(await h.failure(providerPortalApi.protocolSchema, {}, { kind: 'public' })).toMatchObject({
      status: 403,
    });
  });

  it('agrees with the zod validation on a corpus of valid and invalid events', async () => {
    const reply = await h.call(providerPortalApi.protocolSchema, {}, ADMIN);
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    const validate = ajv.compile(reply.body as object);
    const disagreements = corpus()
      .map(([name, value]) => ({ name, ajv: validate(value), zod: SettlementEvent.safeParse(value).success }))
      .filter((row) => row.ajv !== row.zod);
    expect(disagreements).toEqual([]);
    expect(corpus().filter(([, value]) => SettlementEvent.safeParse(value).success)).toHaveLength(4);
  });
});
