import { randomBase62, type PaymentEventData } from '@mmp/protocol';
import {
  buildMerchantEvent,
  merchantEventTypeFor,
  subscribes,
  type WebhookDelivery,
} from '../domain/webhooks.js';
import { enabledEndpoints, insertDelivery } from '../store/webhooks.js';
import type { Deps } from '../deps.js';

/**
 * Turns a terminal payment event into one delivery per subscribed endpoint. The delivery
 * id pairs the event id with the endpoint, so a redelivered event creates nothing new and
 * the merchant sees one stable event id however often it is retried. Returns how many
 * deliveries it made.
 */
export async function dispatchPaymentEvent(
  deps: Deps,
  event: { id: string; type: string; occurredAt: string; data: PaymentEventData },
): Promise<number> {
  const type = merchantEventTypeFor(event.type);
  if (!type) return 0;
  const { payment } = event.data;
  const body = buildMerchantEvent({ eventId: event.id, type, occurredAt: event.occurredAt, payment });
  const payload = JSON.stringify(body);
  const endpoints = await enabledEndpoints(deps.db, {
    projectId: payment.projectId,
    livemode: payment.livemode,
  });
  const at = deps.now().toISOString();
  let created = 0;
  for (const endpoint of endpoints.filter((candidate) => subscribes(candidate, type))) {
    const delivery: WebhookDelivery = {
      _id: `${event.id}:${endpoint.id}`,
      id: `whd_${randomBase62(24)}`,
      eventId: event.id,
      eventType: type,
      endpointId: endpoint.id,
      projectId: payment.projectId,
      livemode: payment.livemode,
      payload,
      status: 'pending',
      retryCount: 0,
      manual: false,
      nextAttemptAt: at,
      claimedUntil: null,
      attempts: [],
      createdAt: at,
      updatedAt: at,
    };
    if (await insertDelivery(deps.db, delivery)) created += 1;
  }
  return created;
}
