import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/** A zod schema as JSON Schema (2020-12 unless told), without `$schema`: OpenAPI and Fastify embed it. */
export function jsonSchema(
  schema: z.ZodType,
  io: 'input' | 'output',
  target: 'draft-2020-12' | 'draft-7' = 'draft-2020-12',
): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target,
    io,
    unrepresentable: 'any',
  }) as JsonSchema;
  return rest;
}

/**
 * A reply's JSON Schema as its serializer reads it (`replySerializersOf`). Read in its input
 * form: the body goes out as the service wrote it, which its contract admits with defaulted
 * fields left out (the output form would require them, and the serializer throws on a
 * missing required field). Draft 7: the serializer picks `anyOf` branches with Ajv's default
 * draft, which reads a 2020-12 tuple (`prefixItems`) as an array allowing no item at all.
 */
export function replyJsonSchema(schema: z.ZodType): JsonSchema {
  return nullableAsTypeList(jsonSchema(schema, 'input', 'draft-7')) as JsonSchema;
}

const isNullType = (branch: JsonSchema) => Object.keys(branch).length === 1 && branch.type === 'null';

/**
 * zod writes `.nullable()` as `anyOf: [X, {type: 'null'}]`; here, where X has one type of
 * its own, that becomes X with `type: [X's type, 'null']`. The serializer writes a list of
 * types itself, where it picks an `anyOf` branch by validating the value with Ajv: 85 of
 * the replies' 94 `anyOf` were nullable fields, so most routes built and compiled Ajv
 * validators on their first reply (a hot start for Ajv's code generation, and its memory
 * kept after) and ran one per such field on every reply. What goes out is the same.
 */
export function nullableAsTypeList(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableAsTypeList);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { anyOf, ...rest } = schema as JsonSchema;
  const converted = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, nullableAsTypeList(value)]),
  );
  if (!Array.isArray(anyOf)) return converted;
  const branches = anyOf.map(nullableAsTypeList) as JsonSchema[];
  const nullAt = branches.findIndex(isNullType);
  const other = branches.length === 2 && nullAt >= 0 ? branches[1 - nullAt] : undefined;
  if (typeof other?.type !== 'string' || 'anyOf' in other || 'oneOf' in other || 'allOf' in other)
    return { ...converted, anyOf: branches };
  // Every other keyword applies to its own type only, so null still passes it where Ajv
  // validates (a branch of a remaining anyOf); a list of allowed values must name null.
  const { const: only, ...withoutConst } = other;
  const values = Array.isArray(other.enum) ? other.enum : 'const' in other ? [only] : undefined;
  return {
    ...withoutConst,
    ...converted,
    type: [other.type, 'null'],
    ...(values ? { enum: [...values, null] } : {}),
  };
}
