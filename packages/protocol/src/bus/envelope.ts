import { z } from 'zod';

/**
 * Who is calling. The gateway authenticates and puts the actor in NATS headers; services
 * trust it because only the gateway and other services can publish on `svc.*`
 * (enforced by NATS permissions in production, see deploy/).
 */
export const MerchantActor = z.object({
  kind: z.literal('merchant'),
  projectId: z.string(),
  livemode: z.boolean(),
  scopes: z.array(z.string()),
  keyId: z.string(),
});
export type MerchantActor = z.infer<typeof MerchantActor>;

export const ProviderActor = z.object({ kind: z.literal('provider'), providerId: z.string() });
export type ProviderActor = z.infer<typeof ProviderActor>;

export const Actor = z.discriminatedUnion('kind', [
  MerchantActor,
  ProviderActor,
  z.object({ kind: z.literal('admin') }),
  z.object({ kind: z.literal('public') }),
  /** Another service of the system calling an internal operation. */
  z.object({ kind: z.literal('service'), service: z.string() }),
]);
export type Actor = z.infer<typeof Actor>;

/** NATS header names carried on requests and events. */
export const HEADER = {
  requestId: 'x-request-id',
  actor: 'x-actor',
  /** On every payment event: `true` when the payment names a customer, else `false`. */
  hasCustomer: 'x-has-customer',
} as const;

/**
 * The body of every request on `svc.*`: an HTTP-shaped request so that the gateway stays
 * a thin, generic edge and the owning service validates its own input with the protocol
 * schemas. Internal callers put their command in `body`.
 */
export const ServiceRequest = z.object({
  params: z.record(z.string(), z.string()).default({}),
  query: z.record(z.string(), z.union([z.string(), z.array(z.string())])).default({}),
  body: z.unknown().optional(),
  /** The exact bytes received, for routes whose payload is signed (utf-8). */
  rawBody: z.string().optional(),
  /** Only the headers an operation needs: idempotency-key, x-service-signature, accept-language. */
  headers: z.record(z.string(), z.string()).default({}),
});
export type ServiceRequest = z.infer<typeof ServiceRequest>;

/** A successful reply; errors travel as NATS service errors carrying an AppErrorBody. */
export const ServiceReply = z.object({
  status: z.number().int(),
  body: z.unknown(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Defaults to application/json; pages and assets of the hosted checkout use others. */
  contentType: z.string().optional(),
});
export type ServiceReply = z.infer<typeof ServiceReply>;
