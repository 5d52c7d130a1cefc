import {
  randomBase62,
  type PaymentEventData,
  type PayoutEventData,
  type RefundEventData,
} from '@mmp/protocol';
import {
  buildMerchantEvent,
  merchantEventTypeFor,
  subscribes,
  type WebhookDelivery,
} from '../domain/webhooks.js';
import { toPayoutView, toRefundView } from '../domain/transfer.js';
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
  event: {
    id: string;
    type: string;
    occurredAt: string;
    data: PaymentEventData | RefundEventData | PayoutEventData;
  },
): Promise<number> {
  const type = merchantEventTypeFor(event.type);
  if (!type) return 0;
  const { body, scope } = merchantBody(event.id, type, event.occurredAt, event.data);
  const payload = JSON.stringify(body);
  const { projectId, livemode } = scope;
  const endpoints = await enabledEndpoints(deps.db, scope);
  const at = deps.now().toISOString();
  let created = 0;
  for (const endpoint of endpoints.filter((candidate) => subscribes(candidate, type))) {
    const delivery: WebhookDelivery = {
      _id: `${event.id}:${endpoint.id}`,
      id: `whd_${randomBase62(24)}`,
      eventId: event.id,
      eventType: type,
      endpointId: endpoint.id,
      projectId,
      livemode,
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

/** The body a merchant receives: a payout, or a payment (with the refund that moved it). */
function merchantBody(
  eventId: string,
  type: ReturnType<typeof merchantEventTypeFor> & string,
  occurredAt: string,
  data: PaymentEventData | RefundEventData | PayoutEventData,
) {
  if ('payout' in data) {
    const { payout } = data;
    const view = toPayoutView({
      ...payout,
      _id: payout.id,
      recipientPhone: payout.recipientPhone,
      referenceKey: '',
      debited: true,
      idempotencyId: null,
    });
    return {
      body: { id: eventId, type, createdAt: occurredAt, livemode: payout.livemode, data: view },
      scope: { projectId: payout.projectId, livemode: payout.livemode },
    };
  }
  const { payment } = data;
  const body = buildMerchantEvent({ eventId, type, occurredAt, payment });
  const scope = { projectId: payment.projectId, livemode: payment.livemode };
  if (!('refund' in data)) return { body, scope };
  const { refund } = data;
  const refundView = toRefundView({
    ...refund,
    _id: refund.id,
    debited: true,
    idempotencyId: null,
  });
  return { body: { ...body, data: { ...body.data, refund: refundView } }, scope };
}
