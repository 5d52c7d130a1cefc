import { z } from 'zod';
import {
  CreateWebhookEndpointBody,
  MerchantWebhookEventType,
  UpdateWebhookEndpointBody,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '@mmp/protocol';
import type { ForwardedRoute } from './route.js';

const idParams = z.object({ id: z.uuid() });

const Delivery = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: MerchantWebhookEventType,
  endpointId: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attemptCount: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  attempts: z.array(
    z.object({
      at: z.string(),
      statusCode: z.number().int().nullable(),
      latencyMs: z.number().int(),
      error: z.string().nullable(),
      manual: z.boolean(),
    }),
  ),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/**
 * Merchant webhook endpoints, owned by the payments service: it signs and delivers the
 * events, so it keeps the sealed secrets (envelope error form).
 */
export const webhookEndpointsRoutes: ForwardedRoute[] = [
  {
    method: 'POST',
    url: '/v1/webhook-endpoints',
    service: 'payments',
    operation: 'webhook-endpoints.create',
    auth: 'merchant',
    scope: 'webhooks:write',
    errorForm: 'envelope',
    summary: 'Add a webhook endpoint; its whsec_ secret is shown only in this answer',
    tag: 'Webhook endpoints',
    schema: { body: CreateWebhookEndpointBody, responses: { 201: WebhookEndpointWithSecret } },
  },
  {
    method: 'GET',
    url: '/v1/webhook-endpoints',
    service: 'payments',
    operation: 'webhook-endpoints.list',
    auth: 'merchant',
    scope: 'webhooks:read',
    errorForm: 'envelope',
    summary: 'List the webhook endpoints of this project and environment',
    tag: 'Webhook endpoints',
    schema: { responses: { 200: z.object({ data: z.array(WebhookEndpoint), has_more: z.boolean() }) } },
  },
  {
    method: 'GET',
    url: '/v1/webhook-endpoints/:id',
    service: 'payments',
    operation: 'webhook-endpoints.get',
    auth: 'merchant',
    scope: 'webhooks:read',
    errorForm: 'envelope',
    summary: 'Retrieve a webhook endpoint (its secret only as a hint)',
    tag: 'Webhook endpoints',
    schema: { params: idParams, responses: { 200: WebhookEndpoint } },
  },
  {
    method: 'PATCH',
    url: '/v1/webhook-endpoints/:id',
    service: 'payments',
    operation: 'webhook-endpoints.update',
    auth: 'merchant',
    scope: 'webhooks:write',
    errorForm: 'envelope',
    summary: 'Change the URL, description, subscribed events or status of an endpoint',
    tag: 'Webhook endpoints',
    schema: { params: idParams, body: UpdateWebhookEndpointBody, responses: { 200: WebhookEndpoint } },
  },
  {
    method: 'DELETE',
    url: '/v1/webhook-endpoints/:id',
    service: 'payments',
    operation: 'webhook-endpoints.delete',
    auth: 'merchant',
    scope: 'webhooks:write',
    errorForm: 'envelope',
    summary: 'Delete an endpoint; its pending deliveries are abandoned',
    tag: 'Webhook endpoints',
    schema: { params: idParams, responses: { 200: z.object({ id: z.string(), deleted: z.literal(true) }) } },
  },
  {
    method: 'POST',
    url: '/v1/webhook-endpoints/:id/roll-secret',
    service: 'payments',
    operation: 'webhook-endpoints.roll-secret',
    auth: 'merchant',
    scope: 'webhooks:write',
    errorForm: 'envelope',
    summary: 'Replace the signing secret at once; the new whsec_ secret is shown only in this answer',
    tag: 'Webhook endpoints',
    schema: { params: idParams, responses: { 200: WebhookEndpointWithSecret } },
  },
  {
    method: 'GET',
    url: '/v1/webhook-endpoints/:id/deliveries',
    service: 'payments',
    operation: 'webhook-endpoints.deliveries',
    auth: 'merchant',
    scope: 'webhooks:read',
    errorForm: 'envelope',
    summary: 'Deliveries to an endpoint, newest first, with every attempt (status code, latency, error)',
    tag: 'Webhook endpoints',
    schema: {
      params: idParams,
      query: z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }),
      responses: { 200: z.object({ data: z.array(Delivery), has_more: z.boolean() }) },
    },
  },
  {
    method: 'POST',
    url: '/v1/webhook-endpoints/:id/deliveries/:deliveryId/redeliver',
    service: 'payments',
    operation: 'webhook-endpoints.redeliver',
    auth: 'merchant',
    scope: 'webhooks:write',
    errorForm: 'envelope',
    summary: 'Send a delivery again now, with the same event id and body',
    tag: 'Webhook endpoints',
    schema: { params: z.object({ id: z.uuid(), deliveryId: z.string() }), responses: { 202: Delivery } },
  },
];
