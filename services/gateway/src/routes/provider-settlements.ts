import { z } from 'zod';
import type { ForwardedRoute } from './route.js';
import { providerPortalRoutes } from './provider-portal.js';
import { ProviderMappingView } from './provider-views.js';

const providerParams = z.object({ providerId: z.string() });

/** The portal's rail routes again under `/v1/admin/providers/:providerId`, for the `mmp` command. */
function forProvider(route: ForwardedRoute): ForwardedRoute {
  const params =
    route.schema?.params instanceof z.ZodObject
      ? providerParams.extend(route.schema.params.shape)
      : providerParams;
  return {
    ...route,
    auth: 'admin',
    url: route.url.replace(/^\/v1\/provider\//, '/v1/admin/providers/:providerId/'),
    tag: 'Admin: providers',
    summary: `${route.summary} (for a provider)`,
    schema: { ...route.schema, params },
  };
}

/**
 * The settlement webhook (signed by the provider over the exact raw body, verified by
 * provider-router) and the admin routes of providers' signing secrets and mappings.
 * `GET /v1/admin/providers`, `PUT …/mapping` and `GET /v1/admin/reconciliation` are in admin.ts.
 */
export const providerSettlementsRoutes: ForwardedRoute[] = [
  {
    method: 'POST',
    url: '/v1/provider/webhooks/:providerId',
    service: 'provider-router',
    operation: 'settlements.ingest',
    auth: 'signed',
    rawBody: true,
    errorForm: 'envelope',
    tag: 'Provider settlements',
    summary:
      'Receive a SettlementEvent (x-service-signature: hex HMAC-SHA256 of the exact body with the signing secret): 200, 403 signature, 422 every invalid field, 409 duplicate idempotency_key; a body without protocol_version goes through the provider mapping',
    schema: {
      params: providerParams,
      body: z.record(z.string(), z.unknown()),
      responses: {
        200: z.object({
          received: z.literal(true),
          settlementId: z.string(),
          matched: z.boolean(),
          orderKey: z.string().nullable(),
          status: z.string(),
        }),
      },
    },
  },
  {
    method: 'GET',
    url: '/v1/admin/providers/:providerId/mapping',
    service: 'provider-router',
    operation: 'providers.get-mapping',
    auth: 'admin',
    errorForm: 'envelope',
    tag: 'Admin: providers',
    summary: "The provider's declarative mapping of proprietary settlement payloads (null when none)",
    schema: { params: providerParams, responses: { 200: ProviderMappingView } },
  },
  {
    method: 'POST',
    url: '/v1/admin/providers/:providerId/roll-signing-secret',
    service: 'provider-router',
    operation: 'providers.roll-signing-secret',
    auth: 'admin',
    errorForm: 'envelope',
    tag: 'Admin: providers',
    summary: "Roll the provider's settlement signing secret; the new secret is returned once",
    schema: {
      params: providerParams,
      responses: { 200: z.object({ id: z.string(), name: z.string(), signingSecret: z.string() }) },
    },
  },
  ...providerPortalRoutes.filter((route) => route.url.startsWith('/v1/provider/rails')).map(forProvider),
];
