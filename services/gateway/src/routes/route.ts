import type { z } from 'zod';
import type { ServiceName } from '@mmp/protocol';
import type { Scope } from '@mmp/protocol';

/**
 * How a caller proves who it is:
 * - merchant: `Bearer svc_{test,live}_{sk,pk}_…`, checked against `scope`;
 * - provider: `Bearer sk_…` (provider API key);
 * - admin: `Bearer <ADMIN_TOKEN>`;
 * - public: nothing (rate-limited per client IP);
 * - signed: nothing at the edge; the owning service verifies a signature over the raw body.
 */
export type RouteAuth = 'merchant' | 'provider' | 'admin' | 'public' | 'signed';

/** What every route of the gateway declares, forwarded or served by the gateway itself; the OpenAPI document is built from it. */
export type DocumentedRoute = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify path, e.g. `/v1/payments/:token`. */
  url: string;
  auth: RouteAuth;
  /** Required for merchant routes. */
  scope?: Scope;
  /** Merchant customers routes: the key's project must equal `:projectId` (else 404). */
  projectParam?: string;
  /** `simple` on payment, link and checkout operations; `envelope` everywhere else. */
  errorForm: 'simple' | 'envelope';
  /** Pages and assets of the hosted checkout: not JSON, not in the API reference. */
  page?: boolean;
  summary: string;
  tag: string;
  schema?: {
    params?: z.ZodType;
    query?: z.ZodType;
    body?: z.ZodType;
    /** Success responses by status code. */
    responses?: Record<number, z.ZodType>;
  };
};

/**
 * One HTTP route of the gateway, forwarded to `svc.<service>.<operation>` over NATS.
 * The zod schemas document the route in OpenAPI; the owning service validates.
 */
export type ForwardedRoute = DocumentedRoute & {
  service: ServiceName;
  operation: string;
  /** Forward the exact bytes received (signed payloads). */
  rawBody?: boolean;
  /**
   * Admin routes acting for a project (`:projectId`, query `livemode=true|false`): the
   * service receives a merchant actor of that project holding every scope.
   */
  actAsProject?: boolean;
};
