import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceClient } from '@mmp/platform';
import type { ServiceReply, ServiceRequest } from '@mmp/protocol';
import type { ForwardedRoute } from '../routes/route.js';
import type { Accounts } from '../handlers/accounts.js';
import { createGuard } from './guard.js';

/** The only request headers an operation may read; everything else stays at the edge. */
const FORWARDED_HEADERS = ['idempotency-key', 'x-service-signature', 'accept-language'] as const;

/** Response headers that describe the connection, not the reply: the edge owns them. */
const HOP_HEADERS = new Set(['connection', 'transfer-encoding', 'content-length', 'keep-alive']);

function toServiceRequest(route: ForwardedRoute, request: FastifyRequest): ServiceRequest {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const query = { ...(request.query as Record<string, string | string[]>) };
  // The edge consumed it to pick the environment of the synthesized actor.
  if (route.actAsProject) delete query.livemode;
  return {
    params: request.params as Record<string, string>,
    query,
    body: request.body,
    rawBody: route.rawBody ? (request.rawBody ?? '') : undefined,
    headers,
  };
}

function sendReply(reply: FastifyReply, result: ServiceReply, page: boolean) {
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (!HOP_HEADERS.has(name.toLowerCase())) reply.header(name, value);
  }
  reply.code(result.status);
  if (page || result.contentType) {
    return reply.type(result.contentType ?? 'text/html; charset=utf-8').send(result.body);
  }
  if (result.body === undefined || result.status === 204) return reply.send();
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(result.body));
}

/** Turns each ForwardedRoute into a Fastify route calling `svc.<service>.<operation>`. */
export function registerForwardedRoutes(
  app: FastifyInstance,
  routes: ForwardedRoute[],
  deps: { services: ServiceClient; accounts: Accounts; adminToken: string },
): void {
  for (const route of routes) {
    const guard = createGuard(route, deps.accounts, deps.adminToken);
    app.route({
      method: route.method,
      url: route.url,
      config: { errorForm: route.errorForm, rawBody: route.rawBody === true, page: route.page === true },
      onRequest: [guard.identify],
      preParsing: [guard.reject],
      handler: async (request, reply) => {
        const result = await deps.services.call(
          route.service,
          route.operation,
          toServiceRequest(route, request),
          {
            requestId: request.id,
            actor: request.actor,
          },
        );
        return sendReply(reply, result, route.page === true);
      },
    });
  }
}
