import { z } from 'zod';

type Schema = z.core.$ZodType;

/** A reply that its contract's schema does not admit: a service's fault, answered as one. */
export class UndeclaredReplyError extends TypeError {}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Field = { key: string; schema: Schema; required: boolean };
/** Each object's fields as a list, read once: walking the shape's keys anew cost a reply twice as much. */
const fieldLists = new WeakMap<z.core.$ZodObjectDef, Field[]>();

function fieldsOf(def: z.core.$ZodObjectDef): Field[] {
  let fields = fieldLists.get(def);
  if (!fields) {
    // Optional or defaulted, the input form may leave a field out.
    fields = Object.entries(def.shape).map(([key, schema]) => ({
      key,
      schema,
      required: schema._zod.optin === undefined,
    }));
    fieldLists.set(def, fields);
  }
  return fields;
}

function objectFields(def: z.core.$ZodObjectDef, value: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const { key, schema, required } of fieldsOf(def)) {
    const present = value[key];
    if (present !== undefined) fields[key] = declaredFields(schema, present);
    else if (required) throw new UndeclaredReplyError(`${key} is required`);
  }
  // A catch-all declares every other key (a loose object's are unknown, a strict one's never).
  const rest = def.catchall;
  if (rest && rest._zod.def.type !== 'never') {
    for (const key of Object.keys(value))
      if (!(key in def.shape) && value[key] !== undefined) fields[key] = declaredFields(rest, value[key]);
  }
  return fields;
}

/**
 * `value` with nothing its schema does not declare, in the order the schema declares it (a
 * reply's contract, read in its input form: what the service wrote, before any transform).
 * A union takes the first of its options that admits the value, and a value no option
 * admits, or an object without one of its required fields, is refused
 * (`UndeclaredReplyError`). Everything else goes out as it came, for `JSON.stringify` to
 * write: the services write their replies from these contracts, and the bus client has
 * checked each one against them, so this only ever cuts what a contract leaves out. It reads
 * each schema's definition by its type, which costs a reply of a dozen fields a few
 * microseconds.
 */
export function declaredFields(schema: Schema, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return declaredFields(def.innerType, value);
    case 'lazy':
      return declaredFields(def.getter(), value);
    case 'pipe':
      return declaredFields(def.in, value);
    case 'object':
      return isPlainObject(value) ? objectFields(def, value) : value;
    case 'array':
      return Array.isArray(value) ? value.map((item) => declaredFields(def.element, item)) : value;
    case 'tuple':
      return Array.isArray(value)
        ? value.map((item, i) => {
            const position = def.items[i] ?? def.rest;
            return position ? declaredFields(position, item) : item;
          })
        : value;
    case 'record':
      return isPlainObject(value)
        ? Object.fromEntries(
            Object.entries(value).map(([key, item]) => [key, declaredFields(def.valueType, item)]),
          )
        : value;
    case 'union': {
      const option = def.options.find((candidate) => z.safeParse(candidate, value).success);
      if (!option) throw new UndeclaredReplyError('a value none of its union’s options admits');
      return declaredFields(option, value);
    }
    case 'intersection': {
      const [left, right] = [declaredFields(def.left, value), declaredFields(def.right, value)];
      return isPlainObject(left) && isPlainObject(right) ? { ...left, ...right } : right;
    }
    default:
      return value;
  }
}
