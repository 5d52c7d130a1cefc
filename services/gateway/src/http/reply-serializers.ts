import type { FastifyReply, FastifyRequest, preSerializationHookHandler } from 'fastify';
import { z } from 'zod';
import type { DocumentedRoute } from '../routes/route.js';
import { declaredFields } from './declared-fields.js';

/** A route's reply serializer for a status, or none where its body goes out as it came. */
export type ReplySerializers = (status: number) => ((body: unknown) => string) | undefined;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route's replies are written, by status (`replySerializersOf`). */
    replySerializers?: ReplySerializers;
  }
}

/**
 * The serializers of a route's replies, by status, each writing only what its contract's
 * schema declares (`declaredFields`). A page, or a body that is a bare `z.record`, has
 * nothing to describe and goes out as it came.
 *
 * The gateway picks them itself instead of handing Fastify `schema.response`: Fastify keeps
 * a route's serializers in an object keyed by status code, which V8 stores as an array of
 * some three hundred slots for the one `200` (2.6 kB a route; 0.6 MB of an idle gateway with
 * each route's own response object), and compiles them with fast-json-stringify, which
 * loads Ajv and builds an instance of it for every serializer.
 */
export function replySerializersOf(route: DocumentedRoute): ReplySerializers | undefined {
  if (route.page || !route.responses) return undefined;
  const serializers = new Map(
    Object.entries(route.responses)
      .filter(([, schema]) => !(schema instanceof z.ZodRecord))
      .map(([status, schema]) => [
        Number(status),
        (body: unknown) => JSON.stringify(declaredFields(schema, body)),
      ]),
  );
  if (serializers.size === 0) return undefined;
  return (status) => serializers.get(status);
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
