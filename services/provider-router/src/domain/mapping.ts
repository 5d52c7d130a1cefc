import { z } from 'zod';
import { SettlementStatus } from '@mmp/protocol';

/** The SettlementEvent fields a proprietary payload maps onto (protocol_version is implied: 1). */
export const MAPPED_FIELDS = [
  'idempotency_key',
  'transaction_ref',
  'amount',
  'currency',
  'status',
  'network',
  'settled_at',
] as const;
export type MappedField = (typeof MAPPED_FIELDS)[number];

const FieldPath = z
  .string()
  .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'a field path is dot-separated keys, e.g. "data.amount"');

/**
 * A provider's declarative proprietary mapping: where each SettlementEvent field sits in its
 * own payload (or a constant when its payload never carries it), how its status words map
 * onto ours, and whether its amounts are in minor units (hundredths) to convert.
 */
export const ProprietaryMapping = z
  .object({
    fields: z.partialRecord(z.enum(MAPPED_FIELDS), FieldPath),
    constants: z.partialRecord(z.enum(MAPPED_FIELDS), z.string().min(1)).default({}),
    statusMap: z.record(z.string().min(1), SettlementStatus).default({}),
    amountUnit: z.enum(['major', 'minor']).default('major'),
    /** Where the provider says why a payment failed (e.g. insufficient_balance), if it does. */
    failureCodePath: FieldPath.optional(),
  })
  .strict()
  .superRefine((mapping, ctx) => {
    for (const field of MAPPED_FIELDS) {
      if (!mapping.fields[field] && !mapping.constants[field]) {
        ctx.addIssue({
          code: 'custom',
          path: ['fields', field],
          message: `${field} needs a field path or a constant`,
        });
      }
    }
  });
export type ProprietaryMapping = z.infer<typeof ProprietaryMapping>;

export function readPath(payload: unknown, path: string): unknown {
  let value: unknown = payload;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key))
      return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function toAmount(value: unknown, unit: 'major' | 'minor'): unknown {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (unit === 'major' || typeof text !== 'string' || !/^[0-9]+$/.test(text)) return text;
  const minor = Number(text);
  // A minor amount that is not whole francs stays as sent, so the schema names `amount`.
  return minor % 100 === 0 ? String(minor / 100) : `${text} (minor units, not whole francs)`;
}

function toDateTime(value: unknown): unknown {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
    ? new Date(value * 1000).toISOString()
    : value;
}

export type MappedPayload = {
  candidate: Record<string, unknown>;
  failureCode: string | null;
  sources: Partial<Record<MappedField, string>>;
};

/**
 * Turns a proprietary payload into a SettlementEvent candidate; the candidate then goes
 * through the very same strict schema as a protocol-v1 payload.
 */
export function applyMapping(mapping: ProprietaryMapping, payload: unknown): MappedPayload {
  const candidate: Record<string, unknown> = { protocol_version: '1' };
  const sources: Partial<Record<MappedField, string>> = {};
  for (const field of MAPPED_FIELDS) {
    const path = mapping.fields[field];
    const raw = path ? readPath(payload, path) : mapping.constants[field];
    if (path) sources[field] = path;
    if (raw === undefined && mapping.constants[field] !== undefined)
      candidate[field] = mapping.constants[field];
    else if (field === 'status' && typeof raw === 'string') candidate[field] = mapping.statusMap[raw] ?? raw;
    else if (field === 'amount') candidate[field] = toAmount(raw, mapping.amountUnit);
    else if (field === 'settled_at') candidate[field] = toDateTime(raw);
    else candidate[field] = typeof raw === 'number' ? String(raw) : raw;
  }
  const failure = mapping.failureCodePath ? readPath(payload, mapping.failureCodePath) : undefined;
  return { candidate, failureCode: typeof failure === 'string' && failure ? failure : null, sources };
}
