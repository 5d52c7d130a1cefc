import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import { DeferredReplySchema } from './schemas.js';

type SerializerFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>['buildSerializer'];

const fastJsonStringify = SerializerSelector();

/**
 * Fastify's own reply serializers (fast-json-stringify), each compiled on its route's first
 * reply with that status instead of at start. A compiled serializer keeps its generated code
 * and an Ajv instance for its `anyOf` branches: about a hundred routes made 6 MB of an idle
 * gateway, most of it for routes a deployment never calls. A `DeferredReplySchema` becomes
 * its JSON Schema at the same moment. The serializer is the same one, so what goes out is
 * unchanged; the first reply of a route pays the compilation, and `test/replies.test.ts`,
 * which replies on every route, is where a bad schema shows.
 */
export const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = fastJsonStringify(externalSchemas, options);
  return (route) => {
    let serialize: ((body: unknown) => string) | undefined;
    const build = () =>
      compile(
        route.schema instanceof DeferredReplySchema
          ? { ...route, schema: route.schema.toJsonSchema() }
          : route,
      );
    return (body) => (serialize ??= build())(body);
  };
};
