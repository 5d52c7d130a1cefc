import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isAppError, type AppError } from './errors.js';
import { fieldErrors, parseOrThrow } from './zod-errors.js';

const Schema = z
  .object({
    amount: z.number().int().min(100).max(1000),
    customer: z.object({ email: z.email() }).strict(),
    payee: z.object({ msisdn: z.string().regex(/^\+\d+$/) }).strict(),
    name: z
      .string()
      .min(3)
      .regex(/^[a-z]+$/),
  })
  .strict();

describe('fieldErrors', () => {
  it('joins nested paths and gives one entry per field', () => {
    const result = Schema.safeParse({
      amount: 5,
      customer: { email: 'x' },
      payee: { msisdn: '1' },
      name: 'A',
    });
    const fields = fieldErrors(result.error!);
    expect(fields.map((f) => f.field)).toEqual(['amount', 'customer.email', 'payee.msisdn', 'name']);
  });

  it('names each unknown key, nested ones with their path', () => {
    const result = Schema.safeParse({
      amount: 500,
      customer: { email: 'a@b.co', x: 1 },
      payee: { msisdn: '+1' },
      name: 'abc',
      foo: 1,
      bar: 2,
    });
    expect(fieldErrors(result.error!)).toEqual([
      { field: 'customer.x', message: 'unknown field' },
      { field: 'foo', message: 'unknown field' },
      { field: 'bar', message: 'unknown field' },
    ]);
  });

  // zod is patched to load its English messages only (docs/decisions.md); they are what a
  // merchant reads in `errors[].message`.
  it('words each field in English, the only locale loaded', () => {
    const result = Schema.safeParse({
      amount: 5,
      customer: { email: 'x' },
      payee: { msisdn: '+1' },
      name: 'abc',
    });
    expect(fieldErrors(result.error!)).toEqual([
      { field: 'amount', message: 'Too small: expected number to be >=100' },
      { field: 'customer.email', message: 'Invalid email address' },
    ]);
    expect(Object.keys(z.locales)).toEqual(['en']);
  });

  it("says zod's commonest mistakes in the schemas' own words, and keeps a schema's message", () => {
    const Rail = z
      .object({
        environment: z.enum(['sandbox', 'live']),
        transport: z.literal('webhook'),
        priority: z.number(),
        networks: z.array(z.string()),
        label: z.string({ error: 'label names the rail for its provider' }),
        ack: z.discriminatedUnion('type', [
          z.object({ type: z.literal('payment.ack') }),
          z.object({ type: z.literal('payout.ack') }),
        ]),
      })
      .strict();
    const result = Rail.safeParse({ transport: 'pull', priority: '5', networks: 'ORANGE_MONEY', ack: {} });
    expect(fieldErrors(result.error!)).toEqual([
      // Missing or wrong, an enum field lists what it takes.
      { field: 'environment', message: 'environment must be one of sandbox, live' },
      { field: 'transport', message: 'transport must be webhook' },
      { field: 'priority', message: 'priority must be a number' },
      { field: 'networks', message: 'networks must be an array' },
      { field: 'label', message: 'label names the rail for its provider' },
      { field: 'ack.type', message: 'ack.type must be one of payment.ack, payout.ack' },
    ]);
    expect(fieldErrors(Rail.pick({ priority: true }).safeParse({}).error!)).toEqual([
      { field: 'priority', message: 'priority is required' },
    ]);
    const wrongOption = Rail.shape.environment.safeParse('prod');
    expect(fieldErrors(wrongOption.error!)).toEqual([
      { field: '(root)', message: '(root) must be one of sandbox, live' },
    ]);
  });

  it('reports root issues as (root)', () => {
    const result = Schema.safeParse('nope');
    expect(fieldErrors(result.error!)).toEqual([{ field: '(root)', message: expect.any(String) }]);
  });

  it('uses array indexes in paths', () => {
    const result = z
      .object({ list: z.array(z.object({ key: z.string() })) })
      .safeParse({ list: [{ key: 'a' }, { key: 1 }] });
    expect(fieldErrors(result.error!).map((f) => f.field)).toEqual(['list.1.key']);
  });
});

describe('parseOrThrow', () => {
  it('returns parsed data', () => {
    expect(parseOrThrow(z.object({ a: z.string().default('x') }), {})).toEqual({ a: 'x' });
  });

  it('throws a 422 validation_error naming every invalid field', () => {
    try {
      parseOrThrow(Schema, { amount: 'x' });
      expect.unreachable();
    } catch (error) {
      expect(isAppError(error)).toBe(true);
      const err = error as AppError;
      expect(err.code).toBe('validation_error');
      expect(err.status).toBe(422);
      expect(err.message).toBe('Invalid fields: amount, customer, payee, name.');
      expect(err.fields).toHaveLength(4);
    }
  });
});
