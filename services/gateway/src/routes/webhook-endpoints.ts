import { z } from 'zod';
import {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  webhookEndpointsApi as api,
} from '@mmp/protocol';
import { resourceRoutes, routeGroup, type ForwardedRoute } from './route.js';

const idParams = z.object({ id: z.uuid() });
const deliveries = {
  params: idParams,
  query: z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }),
};
const redelivery = { params: idParams.extend({ deliveryId: z.string() }) };
const merchant = routeGroup({ auth: 'merchant', errorForm: 'envelope', tag: 'Webhook endpoints' });
const endpoint = '/v1/webhook-endpoints/:id';

/**
 * Merchant webhook endpoints, owned by the payments service: it signs and delivers the
 * events, so it keeps the sealed secrets (envelope error form).
 */
export const webhookEndpointsRoutes: ForwardedRoute[] = [
  ...resourceRoutes(
    merchant,
    '/v1/webhook-endpoints',
    { ...api, retrieve: api.get },
    { create: CreateWebhookEndpointBody, update: UpdateWebhookEndpointBody, id: idParams },
  ),
  merchant('POST', `${endpoint}/roll-secret`, api.rollSecret, { params: idParams }),
  merchant('GET', `${endpoint}/deliveries`, api.deliveries, deliveries),
  merchant('POST', `${endpoint}/deliveries/:deliveryId/redeliver`, api.redeliver, redelivery),
];
