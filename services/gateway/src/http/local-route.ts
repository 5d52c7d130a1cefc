import type { FastifyPluginAsync, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';
import type { z } from 'zod';
import { parseOrThrow } from '@mmp/protocol';
import type { DocumentedRoute } from '../routes/route.js';

/** A route the gateway answers itself (accounts), guarded and documented like a forwarded one. */
export type LocalRoute = DocumentedRoute & { handler: RouteHandlerMethod };

/** Validates input at the edge: one entry per invalid field (400 validation_error). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  return parseOrThrow(schema, value ?? {});
}

const localRoutes: FastifyPluginAsync<{ routes: LocalRoute[] }> = async (app, { routes }) => {
  for (const route of routes) app.guardedRoute(route, route.handler);
};

/** The routes the gateway answers from its own store (the accounts under `/v1/admin`). */
export const localRoutesPlugin = fp(localRoutes, {
  name: 'mmp-local-routes',
  fastify: '5.x',
  dependencies: ['mmp-guard', 'mmp-idempotency', 'mmp-rate-limit'],
  encapsulate: true,
});
