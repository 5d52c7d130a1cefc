import type { z } from 'zod';
import { appError, type FieldError } from './errors.js';

export const ROOT_FIELD = '(root)';

function joinPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? ROOT_FIELD : path.map(String).join('.');
}

/**
 * One entry per invalid field, in the order zod found them. Several checks failing on one
 * field (too short and bad pattern) keep only the first message: a merchant or a provider
 * fixes a field, not a check. Unknown keys are named one by one, because "remove `foo`"
 * is the actionable message.
 */
export function fieldErrors(error: z.ZodError): FieldError[] {
  const byField = new Map<string, string>();
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = joinPath([...issue.path, key]);
        if (!byField.has(field)) byField.set(field, 'unknown field');
      }
      continue;
    }
    const field = joinPath(issue.path);
    if (!byField.has(field)) byField.set(field, plainMessage(issue, field) ?? issue.message);
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

const an = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
const listed = (values: readonly unknown[]) => values.map(String).join(', ');

/**
 * zod's own wording of the commonest mistakes, where a schema gave no message of its own,
 * said as the schemas' messages say things: `environment is required` rather than "Invalid
 * input: expected string, received undefined", `environment must be one of sandbox, live`
 * rather than `Invalid option: expected one of "sandbox"|"live"`. Recognised by that exact
 * wording (zod's English locale), so a schema's own message is never replaced.
 */
function plainMessage(issue: z.core.$ZodIssue, field: string): string | undefined {
  if (issue.code === 'invalid_type') {
    const received = /^Invalid input: expected (\w+), received (\w+)$/.exec(issue.message)?.[2];
    if (received === 'undefined') return `${field} is required`;
    if (received) return `${field} must be ${an(issue.expected)}`;
  }
  if (issue.code === 'invalid_value' && /^Invalid (option|input): expected /.test(issue.message)) {
    return issue.values.length === 1
      ? `${field} must be ${String(issue.values[0])}`
      : `${field} must be one of ${listed(issue.values)}`;
  }
  if (issue.code === 'invalid_union' && issue.message.startsWith('Invalid discriminator value.')) {
    const options = (issue as { options?: unknown[] }).options ?? [];
    return `${field} must be one of ${listed(options)}`;
  }
  return undefined;
}

export function validationMessage(fields: readonly FieldError[]): string {
  const names = fields.map((f) => f.field).join(', ');
  return fields.length === 1 ? `Invalid field: ${names}.` : `Invalid fields: ${names}.`;
}

/**
 * Parses or throws a `validation_error` whose message names every invalid field (422 in the
 * catalog; the gateway answers it 400 outside the provider protocol).
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fields = fieldErrors(result.error);
  throw appError('validation_error', validationMessage(fields), fields);
}
