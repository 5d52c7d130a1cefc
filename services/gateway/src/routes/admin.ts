import { z } from 'zod';
import type { ForwardedRoute } from './route.js';

const admin = { auth: 'admin', errorForm: 'envelope' } as const;

const livemodeQuery = z.object({
  livemode: z.enum(['true', 'false']).optional().describe('Environment acted on; default false (sandbox)'),
});
const projectParams = z.object({ projectId: z.string() });
const endpointParams = projectParams.extend({ endpointId: z.string() });

/**
 * Admin acting for a project on its webhook endpoints: the payments service receives a
 * merchant actor of `:projectId` in the environment of `?livemode=` holding every scope.
 */
const onBehalf = {
  ...admin,
  service: 'payments',
  actAsProject: true,
  tag: 'Admin: webhook endpoints',
} as const;

/** Admin routes forwarded to the owning services (accounts routes are the gateway's own). */
export const adminRoutes: ForwardedRoute[] = [
  {
    ...onBehalf,
    method: 'POST',
    url: '/v1/admin/projects/:projectId/webhook-endpoints',
    operation: 'webhook-endpoints.create',
    summary: 'Create a webhook endpoint of the project; its whsec_ secret is returned once',
    schema: {
      params: projectParams,
      query: livemodeQuery,
      body: z.object({ url: z.url(), enabledEvents: z.array(z.string()).optional() }),
    },
  },
  {
    ...onBehalf,
    method: 'GET',
    url: '/v1/admin/projects/:projectId/webhook-endpoints',
    operation: 'webhook-endpoints.list',
    summary: "List the project's webhook endpoints (no secrets)",
    schema: { params: projectParams, query: livemodeQuery },
  },
  {
    ...onBehalf,
    method: 'PATCH',
    url: '/v1/admin/projects/:projectId/webhook-endpoints/:endpointId',
    operation: 'webhook-endpoints.update',
    summary: 'Update a webhook endpoint (url, enabled events, enabled)',
    schema: {
      params: endpointParams,
      query: livemodeQuery,
      body: z.object({
        url: z.url().optional(),
        enabledEvents: z.array(z.string()).optional(),
        enabled: z.boolean().optional(),
      }),
    },
  },
  {
    ...onBehalf,
    method: 'POST',
    url: '/v1/admin/projects/:projectId/webhook-endpoints/:endpointId/roll-secret',
    operation: 'webhook-endpoints.roll-secret',
    summary: 'Roll the signing secret of a webhook endpoint; the new secret is returned once',
    schema: { params: endpointParams, query: livemodeQuery },
  },
  {
    ...onBehalf,
    method: 'DELETE',
    url: '/v1/admin/projects/:projectId/webhook-endpoints/:endpointId',
    operation: 'webhook-endpoints.delete',
    summary: 'Delete a webhook endpoint',
    schema: { params: endpointParams, query: livemodeQuery },
  },
  {
    ...onBehalf,
    method: 'GET',
    url: '/v1/admin/projects/:projectId/webhook-endpoints/:endpointId/deliveries',
    operation: 'webhook-endpoints.deliveries',
    summary: 'Delivery attempts of a webhook endpoint',
    schema: { params: endpointParams, query: livemodeQuery },
  },
  {
    ...onBehalf,
    method: 'POST',
    url: '/v1/admin/projects/:projectId/webhook-endpoints/:endpointId/deliveries/:deliveryId/redeliver',
    operation: 'webhook-endpoints.redeliver',
    summary: 'Deliver an event again',
    schema: { params: endpointParams.extend({ deliveryId: z.string() }), query: livemodeQuery },
  },
  {
    ...admin,
    method: 'GET',
    url: '/v1/admin/providers',
    service: 'provider-router',
    operation: 'providers.list',
    tag: 'Admin: providers',
    summary: 'List providers',
  },
  {
    ...admin,
    method: 'PUT',
    url: '/v1/admin/providers/:providerId/mapping',
    service: 'provider-router',
    operation: 'providers.mapping.set',
    tag: 'Admin: providers',
    summary: "Set the provider's declarative mapping of proprietary (non protocol-v1) settlement payloads",
    schema: { params: z.object({ providerId: z.string() }), body: z.record(z.string(), z.unknown()) },
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
    },
  },
  {
    ...admin,
    method: 'POST',
    url: '/v1/admin/customers/rebuild',
    service: 'customers',
    operation: 'rebuild',
    tag: 'Admin: customers',
    summary: 'Rebuild the customer profiles from the event stream',
  },
];
