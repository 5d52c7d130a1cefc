import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { declaredFields, UndeclaredReplyError } from './declared-fields.js';

const Outcome = z.union([
  z.object({ kind: z.literal('paid'), paidBy: z.string() }),
  z.object({ kind: z.literal('failed'), reason: z.enum(['DECLINED', 'TIMEOUT']).nullable() }),
]);

const Reply = z.object({
  id: z.string(),
  note: z.string().nullable(),
  amount: z.number().int().nullable(),
  status: z.enum(['PENDING', 'COMPLETED']).nullable(),
  payer: z.object({ phone: z.string(), name: z.string().nullable() }).nullable(),
  lines: z.array(z.object({ label: z.string() })).nullable(),
  outcome: Outcome.nullable(),
  meta: z.record(z.string(), z.unknown()).nullable(),
  expiresAt: z.string().optional(),
  livemode: z.boolean().default(false),
});

const written = (schema: z.ZodType, value: unknown) =>
  JSON.parse(JSON.stringify(declaredFields(schema, value)));

const full = {
  id: 'pay_1',
  note: 'rent',
  amount: 5000,
  status: 'COMPLETED',
  payer: { phone: '+237690000001', name: 'Awa' },
  lines: [{ label: 'rent' }],
  outcome: { kind: 'paid', paidBy: 'orange' },
  meta: { orderId: 'A-1', nested: { kept: true } },
  expiresAt: '2026-12-02T10:00:00.000Z',
  livemode: true,
};

describe('the fields of a reply its contract declares', () => {
  it('keeps every declared field, null or not, with defaulted and optional ones left out', () => {
    expect(written(Reply, full)).toEqual(full);
    const empty = {
      id: 'pay_2',
      note: null,
      amount: null,
      status: null,
      payer: null,
      lines: null,
      outcome: null,
      meta: null,
    };
    expect(written(Reply, empty)).toEqual(empty);
    expect(written(Reply, { ...empty, outcome: { kind: 'failed', reason: null } })).toEqual({
      ...empty,
      outcome: { kind: 'failed', reason: null },
    });
  });

  it('cuts what no schema declares, at every depth, and keeps what a record or a loose object admits', () => {
    const extra = {
      ...full,
      internalNote: 'not for callers',
      payer: { ...full.payer, msisdnHash: 'h' },
      lines: [{ label: 'rent', cost: 12 }],
      outcome: { kind: 'paid', paidBy: 'orange', operatorRef: 'x' },
    };
    expect(written(Reply, extra)).toEqual(full);
    const Loose = z.looseObject({ id: z.string() });
    expect(written(Loose, { id: 'a', more: 1 })).toEqual({ id: 'a', more: 1 });
    const Strict = z.strictObject({ id: z.string() });
    expect(written(Strict, { id: 'a', more: 1 })).toEqual({ id: 'a' });
  });

  it('writes fields in the order the schema declares them', () => {
    const reversed = Object.fromEntries(Object.entries(full).reverse());
    expect(JSON.stringify(declaredFields(Reply, reversed))).toBe(JSON.stringify(full));
  });

  it('takes the first option of a union that admits the value, and refuses one no option admits', () => {
    const failed = { kind: 'failed', reason: 'TIMEOUT', paidBy: 'not declared by this option' };
    expect(written(Outcome, failed)).toEqual({ kind: 'failed', reason: 'TIMEOUT' });
    expect(() => declaredFields(Outcome, { kind: 'refunded' })).toThrow(UndeclaredReplyError);
    const Tagged = z.discriminatedUnion('type', [
      z.object({ type: z.literal('a'), a: z.string() }),
      z.object({ type: z.literal('b'), b: z.number() }),
    ]);
    expect(written(z.array(Tagged), [{ type: 'b', b: 1, a: 'x' }])).toEqual([{ type: 'b', b: 1 }]);
  });

  it('refuses an object without one of its required fields', () => {
    const { id: _missing, ...withoutId } = full;
    expect(() => declaredFields(Reply, withoutId)).toThrow(new UndeclaredReplyError('id is required'));
  });

  it('reads intersections, tuples, lazy schemas and transforms in their input form', () => {
    const Both = z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() }));
    expect(written(Both, { a: 'x', b: 1, c: true })).toEqual({ a: 'x', b: 1 });
    const Pair = z.tuple([z.object({ a: z.string() }), z.number()]);
    expect(written(Pair, [{ a: 'x', z: 0 }, 2])).toEqual([{ a: 'x' }, 2]);
    type Node = { name: string; children: Node[] };
    const Tree: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(Tree) }));
    expect(written(Tree, { name: 'r', x: 1, children: [{ name: 'c', y: 2, children: [] }] })).toEqual({
      name: 'r',
      children: [{ name: 'c', children: [] }],
    });
    const Amount = z.object({ value: z.string() }).transform((amount) => Number(amount.value));
    expect(written(Amount, { value: '5', currency: 'XAF' })).toEqual({ value: '5' });
  });
});
