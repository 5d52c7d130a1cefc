import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, preParsingHookHandler, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';
import { ALL_SCOPES, PUBLISHABLE_SAFE_SCOPES, appError, grants, type Actor } from '@mmp/protocol';
import { bearerToken } from '../domain/api-keys.js';
import type { Accounts } from '../handlers/accounts.js';
import type { DocumentedRoute } from '../routes/route.js';
import { audienceOf } from './errors.js';
import { replySerializersOf, serializeByStatus } from './reply-serializers.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request acts for, once the route's guard has identified it. */
    actor?: Actor;
    /** The bucket of the rate limiter: the key, provider or admin when known, else the client IP. */
    rateKey?: string;
    /** Kept until the rate limiter has counted the request, then thrown. */
    authFailure?: unknown;
  }
  interface FastifyInstance {
    /**
     * Registers a route behind its guard (who may call it), in its error form, with its
     * replies serialised from its response schemas.
     */
    guardedRoute(route: DocumentedRoute, handler: RouteHandlerMethod): void;
  }
}

function sameSecret(presented: string, expected: string): boolean {
  // Digests have one length, so the comparison leaks neither content nor length.
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

async function identify(
  route: DocumentedRoute,
  request: FastifyRequest,
  accounts: Accounts,
  adminToken: string,
): Promise<Actor> {
  const token = bearerToken(request.headers.authorization);
  switch (route.auth) {
    case 'public':
    case 'signed':
      return { kind: 'public' };
    case 'admin':
      if (!token || !sameSecret(token, adminToken))
        throw appError('invalid_api_key', 'Invalid or missing admin token.');
      request.rateKey = 'admin';
      return route.actAsProject ? actForProject(request, accounts) : { kind: 'admin' };
    case 'provider': {
      const actor = await accounts.authenticateProvider(token);
      request.rateKey = `provider:${actor.providerId}`;
      return actor;
    }
    case 'merchant': {
      const key = await accounts.authenticateMerchant(token);
      request.rateKey = `key:${key._id}`;
      if (key.kind === 'publishable' && !(route.scope && PUBLISHABLE_SAFE_SCOPES.includes(route.scope))) {
        throw appError(
          'insufficient_permissions',
          'A publishable key cannot be used on this route; use a secret key.',
        );
      }
      return {
        kind: 'merchant',
        projectId: key.projectId,
        livemode: key.livemode,
        scopes: key.scopes,
        keyId: key._id,
      };
    }
  }
}

async function actForProject(request: FastifyRequest, accounts: Accounts): Promise<Actor> {
  const { projectId = '' } = request.params as Record<string, string | undefined>;
  await accounts.requireProject(projectId);
  const { livemode } = request.query as Record<string, unknown>;
  if (livemode !== undefined && livemode !== 'true' && livemode !== 'false') {
    throw appError('validation_error', 'livemode must be true or false.', [
      { field: 'livemode', message: 'must be true or false' },
    ]);
  }
  return {
    kind: 'merchant',
    projectId,
    livemode: livemode === 'true',
    scopes: [...ALL_SCOPES],
    keyId: 'admin',
  };
}

function authorize(route: DocumentedRoute, actor: Actor, params: Record<string, string | undefined>): void {
  if (actor.kind !== 'merchant' || route.auth !== 'merchant') return;
  const scope = route.scope;
  // A merchant route without a scope is a wiring mistake: refuse rather than serve it open.
  if (!scope || !grants(actor.scopes, scope)) {
    throw appError('insufficient_permissions', `This key lacks the ${scope ?? 'required'} scope.`);
  }
  if (route.projectParam && params[route.projectParam] !== actor.projectId) {
    // 404, not 403: another project's objects do not exist for this key.
    throw appError('resource_not_found', 'No such resource.');
  }
}

/**
 * The route's `onRequest` and `preParsing` hooks. Identification runs first so that the
 * rate limiter (an `onRequest` hook added after this one) counts per key; a failure is
 * thrown only after the limiter counted it, and before any body is read.
 */
function createGuard(route: DocumentedRoute, accounts: Accounts, adminToken: string) {
  return {
    async identify(request: FastifyRequest) {
      try {
        request.actor = await identify(route, request, accounts, adminToken);
        authorize(route, request.actor, request.params as Record<string, string | undefined>);
      } catch (error) {
        request.authFailure = error;
      }
    },
    // A callback hook: a request that passed waits on no promise here (edge.ts).
    reject: ((request, reply, payload, done) => {
      const failure = request.authFailure;
      if (!failure) return done(null, payload);
      if ((failure as { status?: number }).status === 401) reply.header('www-authenticate', 'Bearer');
      done(failure as Error);
    }) satisfies preParsingHookHandler,
  };
}

/**
 * Who a guarded request acts for. A handler reached without one is a wiring mistake: it is
 * refused rather than let the bus call the service in the gateway's own name.
 */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw appError('internal_error', 'A route ran without its guard.');
  return request.actor;
}

export type GuardOptions = { accounts: Accounts; adminToken: string };

/** Identification and authorisation of every route, as `app.guardedRoute(route, handler)`. */
export const guardPlugin = fp<GuardOptions>(
  async (app, { accounts, adminToken }) => {
    app.decorateRequest('actor', undefined);
    app.decorateRequest('rateKey', undefined);
    app.decorateRequest('authFailure', undefined);
    app.decorate('guardedRoute', function (this: FastifyInstance, route, handler) {
      const guard = createGuard(route, accounts, adminToken);
      const replySerializers = replySerializersOf(route);
      this.route({
        method: route.method,
        url: route.url,
        config: {
          errorForm: route.errorForm,
          audience: audienceOf(route),
          rawBody: route.rawBody === true,
          page: route.page === true,
          ...(replySerializers ? { replySerializers } : {}),
        },
        ...(replySerializers ? { preSerialization: [serializeByStatus] } : {}),
        onRequest: [guard.identify],
        preParsing: [guard.reject],
        handler,
      });
    });
  },
  { name: 'mmp-guard', fastify: '5.x', dependencies: ['mmp-edge'] },
);
