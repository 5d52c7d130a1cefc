import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { parseOrThrow } from '@mmp/protocol';
import type { DocumentedRoute } from '../routes/route.js';
import type { Accounts } from '../handlers/accounts.js';
import { createGuard } from './guard.js';

/** A route the gateway answers itself (accounts), guarded and documented like a forwarded one. */
export type LocalRoute = DocumentedRoute & {
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
};

export function registerLocalRoutes(
  app: FastifyInstance,
  routes: LocalRoute[],
  deps: { accounts: Accounts; adminToken: string },
): void {
  for (const route of routes) {
    const guard = createGuard(route, deps.accounts, deps.adminToken);
    app.route({
      method: route.method,
      url: route.url,
      config: { errorForm: route.errorForm },
      onRequest: [guard.identify],
      preParsing: [guard.reject],
      handler: route.handler,
    });
  }
}

/** Validates input at the edge: one 422 entry per invalid field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  return parseOrThrow(schema, value ?? {});
}
