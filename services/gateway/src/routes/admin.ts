import { z } from 'zod';
import { providersAdminApi } from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';
import { webhookEndpointsRoutes } from './webhook-endpoints.js';

const livemodeQuery = z.object({
  livemode: z.enum(['true', 'false']).optional().describe('Environment acted on; default false (sandbox)'),
});
const projectParams = z.object({ projectId: z.string() });
const reconciliationQuery = z.object({
  providerId: z.string(),
  date: z.iso.date().describe('YYYY-MM-DD'),
  livemode: z.enum(['true', 'false']).optional(),
});
const shared = { auth: 'admin', errorForm: 'envelope' } as const;
const providers = routeGroup({ ...shared, tag: 'Admin: providers' });
const reconciliation = routeGroup({ ...shared, tag: 'Admin: reconciliation' });

/**
 * Admin acting for a project on its webhook endpoints: every merchant webhook-endpoint
 * route again under `/v1/admin/projects/:projectId`, where the payments service receives a
 * merchant actor of that project, in the environment of `?livemode=`, holding every scope.
 */
function onBehalfOfProject(route: ForwardedRoute): ForwardedRoute {
  const { schema } = route;
  const params =
    schema?.params instanceof z.ZodObject ? projectParams.extend(schema.params.shape) : projectParams;
  const query =
    schema?.query instanceof z.ZodObject ? livemodeQuery.extend(schema.query.shape) : livemodeQuery;
  return {
    ...route,
    ...shared,
    actAsProject: true,
    url: route.url.replace(/^\/v1\//, '/v1/admin/projects/:projectId/'),
    tag: 'Admin: webhook endpoints',
    summary: `${route.summary ?? route.operation.summary} (for a project)`,
    schema: { ...schema, params, query },
  };
}

/** Admin routes forwarded to the owning services (accounts routes are the gateway's own). */
export const adminRoutes: ForwardedRoute[] = [
  ...webhookEndpointsRoutes.map(onBehalfOfProject),
  providers('GET', '/v1/admin/providers', providersAdminApi.list),
  providers('PUT', '/v1/admin/providers/:providerId/mapping', providersAdminApi.setMapping, {
    params: z.object({ providerId: z.string() }),
    body: z.record(z.string(), z.unknown()),
  }),
  reconciliation('GET', '/v1/admin/reconciliation', providersAdminApi.reconciliation, {
    query: reconciliationQuery,
  }),
];
