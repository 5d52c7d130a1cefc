import { z } from 'zod';
import type { ForwardedRoute } from './route.js';
import { ProviderMappingView, ProviderView, ReconciliationReport } from './provider-views.js';
import { webhookEndpointsRoutes } from './webhook-endpoints.js';

const admin = { auth: 'admin', errorForm: 'envelope' } as const;

const livemodeQuery = z.object({
  livemode: z.enum(['true', 'false']).optional().describe('Environment acted on; default false (sandbox)'),
});
const projectParams = z.object({ projectId: z.string() });

/**
 * Admin acting for a project on its webhook endpoints: every merchant webhook-endpoint
 * route again under `/v1/admin/projects/:projectId`, where the payments service receives a
 * merchant actor of that project, in the environment of `?livemode=`, holding every scope.
 */
function onBehalfOfProject(route: ForwardedRoute): ForwardedRoute {
  const { scope: _scope, schema, ...rest } = route;
  const params =
    schema?.params instanceof z.ZodObject ? projectParams.extend(schema.params.shape) : projectParams;
  const query =
    schema?.query instanceof z.ZodObject ? livemodeQuery.extend(schema.query.shape) : livemodeQuery;
  return {
    ...rest,
    ...admin,
    actAsProject: true,
    url: route.url.replace(/^\/v1\//, '/v1/admin/projects/:projectId/'),
    tag: 'Admin: webhook endpoints',
    summary: `${route.summary} (for a project)`,
    schema: { ...schema, params, query },
  };
}

/** Admin routes forwarded to the owning services (accounts routes are the gateway's own). */
export const adminRoutes: ForwardedRoute[] = [
  ...webhookEndpointsRoutes.map(onBehalfOfProject),
  {
    ...admin,
    method: 'GET',
    url: '/v1/admin/providers',
    service: 'provider-router',
    operation: 'providers.list',
    tag: 'Admin: providers',
    summary: 'List providers',
    schema: { responses: { 200: z.object({ data: z.array(ProviderView) }) } },
  },
  {
    ...admin,
    method: 'PUT',
    url: '/v1/admin/providers/:providerId/mapping',
    service: 'provider-router',
    operation: 'providers.mapping.set',
    tag: 'Admin: providers',
    summary: "Set the provider's declarative mapping of proprietary (non protocol-v1) settlement payloads",
    schema: {
      params: z.object({ providerId: z.string() }),
      body: z.record(z.string(), z.unknown()),
      responses: { 200: ProviderMappingView },
    },
  },
  {
    ...admin,
    method: 'GET',
    url: '/v1/admin/reconciliation',
    service: 'provider-router',
    operation: 'reconciliation.report',
    tag: 'Admin: reconciliation',
    summary: 'Orders against settlements of one provider, environment and day',
    schema: {
      query: z.object({
        providerId: z.string(),
        date: z.iso.date().describe('YYYY-MM-DD'),
        livemode: z.enum(['true', 'false']).optional(),
      }),
      responses: { 200: ReconciliationReport },
    },
  },
];
