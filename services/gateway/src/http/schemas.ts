import { z } from 'zod';
import type { DocumentedRoute } from '../routes/route.js';

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
 * A reply's JSON Schema, converted from its zod schema when the route first replies with
 * that status (`lazySerializers`), not at start: the hundred routes' schemas were 1.5 MB of
 * an idle gateway. A class because Fastify tells such schemas by their prototype: one that
 * is not a plain object's reaches the serializer factory as it was given.
 */
export class DeferredReplySchema {
  constructor(private readonly schema: z.ZodType) {}

  /**
   * Draft 7: the serializer picks `anyOf` branches with Ajv's default draft, which reads a
   * 2020-12 tuple (`prefixItems`) as an array allowing no item at all.
   */
  toJsonSchema(): JsonSchema {
    return jsonSchema(this.schema, 'input', 'draft-7');
  }
}

/**
 * The schemas Fastify serialises a route's replies with, by status. Read in their input
 * form: the body goes out as the service wrote it, which its contract admits with defaulted
 * fields left out (the output form would require them, and the serializer throws on a
 * missing required field). A page, or a body that is a bare `z.record`, has nothing to
 * describe and goes out as it came.
 */
export function replySchemas(route: DocumentedRoute): Record<number, DeferredReplySchema> | undefined {
  if (route.page || !route.responses) return undefined;
  const described = Object.entries(route.responses).filter(([, schema]) => !(schema instanceof z.ZodRecord));
  if (described.length === 0) return undefined;
  return Object.fromEntries(described.map(([status, schema]) => [status, new DeferredReplySchema(schema)]));
}
