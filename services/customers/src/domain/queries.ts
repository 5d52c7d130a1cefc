import type { z } from 'zod';
import { appError, fieldErrors } from '@mmp/protocol';

/**
 * Parses query parameters with a protocol schema; anything wrong (a bad value, a repeated
 * or unknown parameter) is a 400 `invalid_request` whose message names the parameters.
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  raw: Record<string, string | string[]>,
): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const fields = fieldErrors(result.error);
  const detail = fields
    .map((f) => (f.message.startsWith(f.field) ? f.message : `${f.field}: ${f.message}`))
    .join('; ');
  throw appError(
    'invalid_request',
    `Invalid query parameter${fields.length > 1 ? 's' : ''}: ${detail}.`,
    fields,
  );
}
