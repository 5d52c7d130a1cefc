import { z } from 'zod';
import {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  webhookEndpointsApi as api,
} from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';

const idParams = z.object({ id: z.uuid() });
const deliveryParams = idParams.extend({ deliveryId: z.string() });
const limitQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).optional() });
const merchant = routeGroup({ auth: 'merchant', errorForm: 'envelope', tag: 'Webhook endpoints' });

/**
 * Merchant webhook endpoints, owned by the payments service: it signs and delivers the
 * events, so it keeps the sealed secrets (envelope error form).
 */
export const webhookEndpointsRoutes: ForwardedRoute[] = [
  merchant('POST', '/v1/webhook-endpoints', api.create, { body: CreateWebhookEndpointBody }),
  merchant('GET', '/v1/webhook-endpoints', api.list),
  merchant('GET', '/v1/webhook-endpoints/:id', api.get, { params: idParams }),
  merchant('PATCH', '/v1/webhook-endpoints/:id', api.update, {
    params: idParams,
    body: UpdateWebhookEndpointBody,
  }),
  merchant('DELETE', '/v1/webhook-endpoints/:id', api.delete, { params: idParams }),
  merchant('POST', '/v1/webhook-endpoints/:id/roll-secret', api.rollSecret, { params: idParams }),
  merchant('GET', '/v1/webhook-endpoints/:id/deliveries', api.deliveries, {
    params: idParams,
    query: limitQuery,
  }),
  merchant('POST', '/v1/webhook-endpoints/:id/deliveries/:deliveryId/redeliver', api.redeliver, {
    params: deliveryParams,
  }),
];
