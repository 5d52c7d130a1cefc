import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { BusClient } from '@mmp/platform';
import type { ServiceReply, ServiceRequest } from '@mmp/protocol';
import { documented, type ForwardedRoute } from '../routes/route.js';
import { actorOf } from './guard.js';
import { replySerializerOf } from './reply-serializers.js';
import type { ReplyCache } from './reply-cache.js';

/** The only request headers an operation may read; everything else stays at the edge. */
const FORWARDED_HEADERS = ['idempotency-key', 'x-service-signature', 'accept-language'] as const;

/** Response headers that describe the connection, not the reply: the edge owns them. */
const HOP_HEADERS = new Set(['connection', 'transfer-encoding', 'content-length', 'keep-alive']);

function toServiceRequest(route: ForwardedRoute, request: FastifyRequest): ServiceRequest {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    // The owning service keeps the outcome of a keyed request: POSTs only, as the edge does.
    if (name === 'idempotency-key' && request.method !== 'POST') continue;
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
  // Objects go through the route's serializer; Fastify would send a bare string unquoted.
  const body = typeof result.body === 'string' ? JSON.stringify(result.body) : result.body;
  return reply.type(JSON_TYPE).send(body);
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** The reply with its body as the JSON its route's serializer writes. */
function serialised(reply: FastifyReply, result: ServiceReply): ServiceReply {
  const serialize = replySerializerOf(reply, result.status) ?? JSON.stringify;
  return { ...result, body: serialize(result.body), contentType: JSON_TYPE };
}

type ForwardOptions = { routes: ForwardedRoute[]; bus: BusClient; replies?: ReplyCache };

/** Where a kept reply of this request lives and who may be answered it; none when it may not be kept. */
function keptReplyOf(route: ForwardedRoute, request: FastifyRequest) {
  const actor = request.actor;
  if (!route.keptUntil || actor?.kind !== 'merchant' || request.url.includes('?')) return undefined;
  const id = (request.params as Record<string, string>)[route.keptUntil.param];
  return {
    resource: `${route.keptUntil.notice.topic}:${id}`,
    audience: `${actor.projectId}:${actor.livemode}`,
  };
}

const forward: FastifyPluginAsync<ForwardOptions> = async (app, { routes, bus, replies }) => {
  for (const route of routes) {
    const page = route.page === true;
    app.guardedRoute(documented(route), async (request, reply) => {
      const kept = replies && keptReplyOf(route, request);
      const known = kept && replies.get(kept.resource, kept.audience);
      if (known) return sendReply(reply, known, page);
      const asking = kept && replies.ask(kept.resource, kept.audience);
      const serviceRequest = toServiceRequest(route, request);
      let result: ServiceReply | undefined;
      try {
        result = await bus.request(route.operation, serviceRequest, {
          requestId: request.id,
          actor: actorOf(request),
          heldMs: route.heldMs?.(serviceRequest),
        });
        // Serialised once, as its route serialises it, and kept so: a kept reply is sent as is.
        if (asking && result.status === 200) result = serialised(reply, result);
      } finally {
        asking?.settle(result);
      }
      return sendReply(reply, result, page);
    });
  }
};

/**
 * Every forwarded route: the request, as its contract's HTTP-shaped `ServiceRequest`, goes
 * to the owning service over NATS with the caller's actor; its reply comes back as the
 * HTTP answer.
 */
export const forwardPlugin = fp(forward, {
  name: 'mmp-forward',
  fastify: '5.x',
  dependencies: ['mmp-guard', 'mmp-idempotency', 'mmp-rate-limit'],
  encapsulate: true,
});
