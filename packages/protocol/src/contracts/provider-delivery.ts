import { z } from 'zod';
import { defineOperation, eventsOf, gatewayQuery, httpOperationsOf } from '../bus/contract.js';
import { DeliveryClassification, DeliveryOutcomeData } from '../bus/events.js';
import { OrderAck } from '../provider/protocol-v1.js';
import { PullOrder, PullOrdersResponse } from '../provider/pull.js';

const providerRoute = httpOperationsOf({ service: 'provider-delivery', actors: ['provider'] });

/** The pull transport: a provider fetches its pull rails' orders and acks them (its key as Bearer). */
export const pullApi = {
  pull: providerRoute({
    name: 'orders.pull',
    responses: { 200: PullOrdersResponse },
    errors: ['invalid_request'],
    summary:
      'Fetch orders not yet acked (limit default 50, max 100); the first fetch marks an order DELIVERED, it stays re-deliverable until acked',
  }),
  ack: providerRoute({
    name: 'orders.ack',
    responses: { 200: OrderAck },
    errors: ['validation_error', 'resource_not_found', 'invalid_state', 'order_expired'],
    summary:
      'Ack an order with the exact payment.ack or payout.ack; the same ack again answers the same, a different one is 409, an expired order 410',
  }),
  get: providerRoute({
    name: 'orders.get',
    responses: { 200: PullOrder },
    errors: ['resource_not_found'],
    summary:
      "Read one order of the provider's pull rails: its status and, once acked, its ack (webhook orders are answered by the adapter, not here)",
  }),
};

/** Every delivery of an order key, one per rail it went to, with each webhook attempt. */
export const OrderDeliveries = z.object({
  deliveries: z.array(
    z.object({
      railId: z.string(),
      providerId: z.string(),
      transport: z.enum(['webhook', 'pull']),
      status: z.enum(['PENDING', 'DELIVERED', 'ACKED', 'FAILED', 'EXPIRED']),
      outcome: DeliveryClassification.nullable(),
      reason: z.string().nullable(),
      deliveryCount: z.number().int(),
      attempts: z.array(
        z.object({
          attempt: z.number().int(),
          at: z.iso.datetime(),
          httpStatus: z.number().int().nullable(),
          latencyMs: z.number().nullable(),
          /** A delivery classification, IN_FLIGHT while the POST is out, or INTERRUPTED by a crash. */
          classification: z.union([DeliveryClassification, z.enum(['IN_FLIGHT', 'INTERRUPTED'])]),
          reason: z.string().nullable(),
        }),
      ),
    }),
  ),
});
export type OrderDeliveries = z.infer<typeof OrderDeliveries>;

export const deliveryOperations = {
  deliveries: gatewayQuery('provider-delivery', 'deliveries.get', {
    request: z.object({ orderKey: z.string().min(1) }),
    reply: OrderDeliveries,
    errors: ['resource_not_found'],
    summary: 'Every delivery of an order key, with each attempt (for support and operators)',
  }),
  /**
   * Pull rails have no endpoint for a fault relay: their cases 9 and 10 probe the ack route's
   * own rules with acks the adapter did not send (docs/decisions.md, Certification).
   */
  certificationAck: defineOperation({
    service: 'provider-delivery',
    name: 'certification.ack',
    actors: ['service'],
    callers: ['certification-runner'],
    request: z.strictObject({ providerId: z.string().min(1), orderKey: z.string().min(1), ack: OrderAck }),
    reply: z.object({ status: z.number().int(), body: z.unknown() }),
    summary:
      "An ack of a certification order of a pull rail, through the pull route's rules, answered with the HTTP status and body the provider would get",
  }),
};

const providerDeliveryEvent = eventsOf('provider-delivery');
const deliveryEvent = <T extends string>(type: T, summary: string) =>
  providerDeliveryEvent({ type, data: DeliveryOutcomeData, consumers: ['provider-router'], summary });

export const deliveryEvents = {
  accepted: deliveryEvent('delivery.accepted', 'The adapter acked the order ACCEPTED'),
  rejected: deliveryEvent('delivery.rejected', 'The adapter acked the order REJECTED'),
  failed: deliveryEvent(
    'delivery.failed',
    'The delivery failed (HTTP error, timeout, bad or mismatched ack)',
  ),
  expired: deliveryEvent('delivery.expired', 'The order passed expires_at unacked'),
};
export const DELIVERY_EVENTS = Object.values(deliveryEvents);
