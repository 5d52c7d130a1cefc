import { consumeEvents, type NatsConnection, type Naming, type ReceivedEvent } from '@mmp/platform';
import { PaymentEventData, randomBase62 } from '@mmp/protocol';
import {
  MERCHANT_EVENT_TYPES,
  buildMerchantEvent,
  merchantEventTypeFor,
  subscribes,
  type WebhookDelivery,
} from '../domain/webhooks.js';
import { enabledEndpoints, insertDelivery } from '../store/webhooks.js';
import type { Deps } from './deps.js';

/**
 * Turns a terminal payment event into one delivery per subscribed endpoint. The delivery
 * id pairs the event id with the endpoint, so a redelivered event creates nothing new and
 * the merchant sees one stable event id however often it is retried.
 */
export async function dispatchPaymentEvent(deps: Deps, event: ReceivedEvent): Promise<number> {
  const type = merchantEventTypeFor(event.type);
  const parsed = PaymentEventData.safeParse(event.data);
  if (!type || !parsed.success) {
    deps.log.error({ eventId: event.id, type: event.type }, 'dropping malformed payment event');
    return 0;
  }
  const payment = parsed.data.payment;
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

export function consumeWebhookEvents(
  deps: Deps,
  nc: NatsConnection,
  naming: Naming,
  onDispatched: () => void,
) {
  return consumeEvents({
    nc,
    naming,
    durable: 'payments-webhooks',
    types: Object.keys(MERCHANT_EVENT_TYPES),
    log: deps.log,
    handle: async (event) => {
      if ((await dispatchPaymentEvent(deps, event)) > 0) onDispatched();
    },
  });
}
