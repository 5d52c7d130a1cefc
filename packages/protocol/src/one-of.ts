import { z } from 'zod';

/** An enum whose error lists what it accepts, so a caller can correct the value without the docs. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, field?: string) {
  const accepted = `must be one of ${values.join(', ')}`;
  return z.enum(values, { error: field === undefined ? accepted : `${field} ${accepted}` });
}
