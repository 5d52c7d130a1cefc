import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { nullableAsTypeList, replyJsonSchema } from './schemas.js';

const Reply = z.object({
  id: z.string(),
  note: z.string().nullable(),
  amount: z.number().int().nullable(),
  status: z.enum(['PENDING', 'COMPLETED']).nullable(),
  channel: z.literal('ussd').nullable(),
  payer: z.object({ phone: z.string(), name: z.string().nullable() }).nullable(),
  lines: z.array(z.object({ label: z.string() })).nullable(),
  // Ajv still picks the branch here: a null where a branch allows it must match that branch.
  outcome: z
    .union([
      z.object({ kind: z.literal('paid'), paidBy: z.string() }),
      z.object({ kind: z.literal('failed'), reason: z.enum(['DECLINED', 'TIMEOUT']).nullable() }),
    ])
    .nullable(),
  meta: z.record(z.string(), z.unknown()).nullable(),
});

const serializerOf = (schema: z.ZodType) =>
  SerializerSelector()()({ schema: replyJsonSchema(schema), method: 'GET', url: '/x', httpStatus: '200' });

describe('reply schemas as the serializer reads them', () => {
  it('write every nullable field as it was, null or not', () => {
    const serialize = serializerOf(Reply);
    const full = {
      id: 'pay_1',
      note: 'rent',
      amount: 5000,
      status: 'COMPLETED',
      channel: 'ussd',
      payer: { phone: '+237690000001', name: 'Awa' },
      lines: [{ label: 'rent' }],
      outcome: { kind: 'paid', paidBy: 'orange' },
      meta: { orderId: 'A-1' },
    };
    const empty = {
      id: 'pay_2',
      note: null,
      amount: null,
      status: null,
      channel: null,
      payer: { phone: '+237690000002', name: null },
      lines: null,
      outcome: null,
      meta: null,
    };
    expect(JSON.parse(serialize(full))).toEqual(full);
    expect(JSON.parse(serialize(empty))).toEqual(empty);
    expect(JSON.parse(serialize({ ...empty, payer: null }))).toEqual({ ...empty, payer: null });
    const failed = { ...empty, outcome: { kind: 'failed', reason: null } };
    expect(JSON.parse(serialize(failed))).toEqual(failed);
  });

  it('give a nullable field of one type a list of types, and keep anyOf where branches differ', () => {
    const schema = replyJsonSchema(Reply) as {
      properties: Record<string, Record<string, unknown>>;
    };
    const { note, payer, lines, status, channel, outcome } = schema.properties;
    expect(note).toEqual({ type: ['string', 'null'] });
    expect(status).toMatchObject({ type: ['string', 'null'], enum: ['PENDING', 'COMPLETED', null] });
    expect(channel).toEqual({ type: ['string', 'null'], enum: ['ussd', null] });
    expect(payer).toMatchObject({ type: ['object', 'null'], required: ['phone', 'name'] });
    expect(lines).toMatchObject({ type: ['array', 'null'] });
    expect(outcome!.anyOf).toHaveLength(2);
  });

  it('leave schemas without a nullable field as they were', () => {
    const plain = { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'number' }] } } };
    expect(nullableAsTypeList(plain)).toEqual(plain);
  });
});
