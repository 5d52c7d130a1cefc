import { z } from 'zod';
import { Uuid, WebhookSecret } from '../ids.js';
import { DateTime, HttpUrl } from './common.js';
import { MerchantWebhookEventType } from './webhook-event.js';

/** Either explicit event types or ['*'] for all, never a mix (a mix would be ambiguous). */
export const EnabledEvents = z.union([z.tuple([z.literal('*')]), z.array(MerchantWebhookEventType).min(1)], {
  error: "enabledEvents must be a non-empty list of event types, or ['*']",
});
export type EnabledEvents = z.infer<typeof EnabledEvents>;

export const WebhookEndpointStatus = z.enum(['enabled', 'disabled']);
export type WebhookEndpointStatus = z.infer<typeof WebhookEndpointStatus>;

export const WebhookEndpoint = z.strictObject({
  id: Uuid,
  url: z.url(),
  description: z.string().nullable(),
  enabledEvents: EnabledEvents,
  livemode: z.boolean(),
  status: WebhookEndpointStatus,
  /** The last four characters, so a merchant can tell which secret is configured. */
  secretHint: z.string().optional(),
  createdAt: DateTime,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** Create and roll answers carry the secret once; it is never readable again. */
export const WebhookEndpointWithSecret = WebhookEndpoint.extend({ secret: WebhookSecret }).strict();
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;

export const CreateWebhookEndpointBody = z.strictObject({
  url: HttpUrl,
  enabledEvents: EnabledEvents.default(['*']),
  description: z.string().max(500).optional(),
});
export type CreateWebhookEndpointBody = z.infer<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = z
  .object({
    url: HttpUrl,
    enabledEvents: EnabledEvents,
    description: z.string().max(500).nullable(),
    status: WebhookEndpointStatus,
  })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'give at least one field to update');
export type UpdateWebhookEndpointBody = z.infer<typeof UpdateWebhookEndpointBody>;

export function subscribesTo(enabled: EnabledEvents, type: MerchantWebhookEventType): boolean {
  return (enabled as readonly string[]).includes('*') || (enabled as readonly string[]).includes(type);
}

/** One event's delivery to one endpoint, with every attempt. */
export const WebhookDelivery = z.object({
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
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;
