import type { z } from 'zod';
import type { ErrorCode, HttpOperationContract, Notice, Scope, ServiceRequest } from '@mmp/protocol';

/**
 * How a caller proves who it is:
 * - merchant: `Bearer svc_{test,live}_{sk,pk}_…`, checked against the scope;
 * - provider: `Bearer sk_…` (provider API key);
 * - admin: `Bearer <ADMIN_TOKEN>`;
 * - public: nothing (rate-limited per client IP);
 * - signed: nothing at the edge; the owning service verifies a signature over the raw body.
 */
export type RouteAuth = 'merchant' | 'provider' | 'admin' | 'public' | 'signed';

/** The HTTP side of a route: how it is reached, guarded and documented. */
export type HttpRoute = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify path, e.g. `/v1/payments/:token`. */
  url: string;
  auth: RouteAuth;
  /** Merchant customers routes: the key's project must equal `:projectId` (else 404). */
  projectParam?: string;
  /** `simple` on payment, link and checkout operations; `envelope` everywhere else. */
  errorForm: 'simple' | 'envelope';
  /** Pages and assets of the hosted checkout: not JSON, not in the API reference. */
  page?: boolean;
  tag: string;
  /** What the API reference shows of the input; the owning service validates it. */
  schema?: { params?: z.ZodType; query?: z.ZodType; body?: z.ZodType };
};

/**
 * Every route of the gateway as the guard, the serializer and the OpenAPI document read it,
 * forwarded or answered by the gateway itself.
 */
export type DocumentedRoute = HttpRoute & {
  summary: string;
  /** Required for merchant routes. */
  scope?: Scope;
  /** Success bodies by status code: documented, and replies are serialised from them. */
  responses?: Readonly<Record<number, z.ZodType>>;
  /** The error codes the operation answers with, beyond the guard's: documented by status. */
  errors?: readonly ErrorCode[];
  /** Forward the exact bytes received (signed payloads). */
  rawBody?: boolean;
  /**
   * Admin routes acting for a project (`:projectId`, query `livemode=true|false`): the
   * service receives a merchant actor of that project holding every scope.
   */
  actAsProject?: boolean;
};

/**
 * One HTTP route forwarded to the operation its contract declares: the route keeps the
 * HTTP details; the scope, the success responses and (unless the route words it otherwise)
 * the summary come from the contract, so both ends of the NATS hop read one declaration.
 */
export type ForwardedRoute = HttpRoute &
  Pick<DocumentedRoute, 'rawBody' | 'actAsProject'> & {
    operation: HttpOperationContract;
    summary?: string;
    /** How long the service may hold this request on purpose (a long poll): added to its timeout. */
    heldMs?: (request: ServiceRequest) => number;
    /**
     * A merchant read (GET, no query) whose 200 reply the edge may keep for the same project
     * and environment until the owning service tells `notice` naming `params[param]`.
     */
    keptUntil?: { notice: Notice; param: string };
  };

/** A forwarded route as the edge and the reference read it. */
export function documented(route: ForwardedRoute): DocumentedRoute {
  const { operation, heldMs: _held, keptUntil: _kept, ...http } = route;
  return {
    ...http,
    summary: route.summary ?? operation.summary,
    scope: operation.scope,
    responses: operation.responses,
    errors: operation.errors,
  };
}

type Shared = Pick<ForwardedRoute, 'auth' | 'errorForm' | 'tag'> &
  Partial<Pick<ForwardedRoute, 'projectParam' | 'page' | 'rawBody'>>;

/** Routes that share their guard, error form and tag, one line each. */
export function routeGroup(shared: Shared) {
  return (
    method: ForwardedRoute['method'],
    url: string,
    operation: HttpOperationContract,
    schema?: HttpRoute['schema'],
  ): ForwardedRoute => ({ ...shared, method, url, operation, ...(schema ? { schema } : {}) });
}

type Input = NonNullable<HttpRoute['schema']>;
type ResourceApi = Record<'create' | 'list' | 'retrieve' | 'update' | 'delete', HttpOperationContract>;

/**
 * The five routes of a resource a merchant manages under `path`: create and list on the
 * collection; read, change and delete at `/:id`.
 */
export function resourceRoutes(
  route: ReturnType<typeof routeGroup>,
  path: string,
  api: ResourceApi,
  input: { create: Input['body']; update: Input['body']; id: Input['params']; list?: Input['query'] },
): ForwardedRoute[] {
  const one = `${path}/:id`;
  const byId = { params: input.id };
  return [
    route('POST', path, api.create, { body: input.create }),
    route('GET', path, api.list, input.list ? { query: input.list } : undefined),
    route('GET', one, api.retrieve, byId),
    route('PATCH', one, api.update, { ...byId, body: input.update }),
    route('DELETE', one, api.delete, byId),
  ];
}
