import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyReply, FastifyRequest, preSerializationHookHandler } from 'fastify';
import { z } from 'zod';
import type { DocumentedRoute } from '../routes/route.js';
import { replyJsonSchema } from './schemas.js';

/** A route's reply serializer for a status, or none where its body goes out as it came. */
export type ReplySerializers = (status: number) => ((body: unknown) => string) | undefined;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route's replies are written, by status (`replySerializersOf`). */
    replySerializers?: ReplySerializers;
  }
}

const compileSerializer = SerializerSelector()();

/**
 * The serializers of a route's replies, by status, each compiled (fast-json-stringify) from
 * its contract's schema on the route's first reply with that status. A page, or a body that
 * is a bare `z.record`, has nothing to describe and goes out as it came.
 *
 * The gateway picks them itself instead of handing Fastify `schema.response`: Fastify keeps
 * a route's serializers in an object keyed by status code, which V8 stores as an array of
 * some three hundred slots for the one `200` (2.6 kB a route; 0.6 MB of an idle gateway with
 * each route's own response object). What goes out is the same: the same compiler, the same
 * schema, compiled as late.
 */
export function replySerializersOf(route: DocumentedRoute): ReplySerializers | undefined {
  if (route.page || !route.responses) return undefined;
  const described = new Map(
    Object.entries(route.responses)
      .filter(([, schema]) => !(schema instanceof z.ZodRecord))
      .map(([status, schema]) => [Number(status), schema]),
  );
  if (described.size === 0) return undefined;
  const compiled = new Map<number, (body: unknown) => string>();
  return (status) => {
    const known = compiled.get(status);
    if (known) return known;
    const schema = described.get(status);
    if (!schema) return undefined;
    const serialize = compileSerializer({
      schema: replyJsonSchema(schema),
      method: route.method,
      url: route.url,
      httpStatus: String(status),
    }) as (body: unknown) => string;
    compiled.set(status, serialize);
    return serialize;
  };
}

/** The route's serializer of the reply's status, if it has one. */
export function replySerializerOf(reply: FastifyReply, status = reply.statusCode) {
  return reply.routeOptions.config.replySerializers?.(status);
}

/**
 * A route's `preSerialization` hook: its reply, when an object, goes out through the
 * serializer of its status. Fastify runs it only for a body it is about to serialise, never
 * for an error (the error handler writes those).
 */
export const serializeByStatus: preSerializationHookHandler = (
  _request: FastifyRequest,
  reply,
  payload,
  done,
) => {
  const serialize = replySerializerOf(reply);
  if (serialize) reply.serializer(serialize);
  done(null, payload);
};
