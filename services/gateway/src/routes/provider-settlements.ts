import { z } from 'zod';
import { providersAdminApi, settlementsApi } from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';
import { certificationRoutes } from './certification.js';
import { providerPortalRoutes } from './provider-portal.js';

const providerParams = z.object({ providerId: z.string() });
const admin = routeGroup({ auth: 'admin', errorForm: 'envelope', tag: 'Admin: providers' });
const signed = routeGroup({
  auth: 'signed',
  rawBody: true,
  errorForm: 'envelope',
  tag: 'Provider settlements',
});

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
    summary: `${route.summary ?? route.operation.summary} (for a provider)`,
    schema: { ...route.schema, params },
  };
}

/**
 * The settlement webhook (signed by the provider over the exact raw body, verified by
 * provider-router) and the admin routes of providers' signing secrets and mappings.
 * `GET /v1/admin/providers`, `PUT …/mapping` and `GET /v1/admin/reconciliation` are in admin.ts.
 */
export const providerSettlementsRoutes: ForwardedRoute[] = [
  signed('POST', '/v1/provider/webhooks/:providerId', settlementsApi.ingest, {
    params: providerParams,
    body: z.record(z.string(), z.unknown()),
  }),
  admin('GET', '/v1/admin/providers/:providerId/mapping', providersAdminApi.getMapping, {
    params: providerParams,
  }),
  admin('POST', '/v1/admin/providers/:providerId/roll-signing-secret', providersAdminApi.rollSigningSecret, {
    params: providerParams,
  }),
  ...providerPortalRoutes.filter((route) => route.url.startsWith('/v1/provider/rails')).map(forProvider),
  ...certificationRoutes.map(forProvider),
];
