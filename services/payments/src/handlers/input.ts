import type { z } from 'zod';
import { appError, fieldErrors } from '@mmp/protocol';

/** The idempotency-key header, whatever case the caller used. */
export function idempotencyKeyOf(headers: Record<string, string>): string | undefined {
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === 'idempotency-key');
  return entry?.[1];
}

/** A query value given once; repeated values are a client error, not a silent pick. */
export function singleQuery(query: Record<string, string | string[]>, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw appError('invalid_request', `Query parameter '${name}' must be given once.`);
    return value[0];
  }
  return value;
}

/** Bad query parameters are the client's mistake: 400 naming each of them. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  const fields = fieldErrors(result.error);
  const detail = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
  throw appError('invalid_request', `Invalid query parameters (${detail}).`, fields);
}
