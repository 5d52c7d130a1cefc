import { z } from 'zod';
import { defineEvent, defineHttpOperation, defineOperation } from '../bus/contract.js';
import { DeliveryOutcomeData } from '../bus/events.js';
import { OrderAck } from '../provider/protocol-v1.js';
import { PullOrder, PullOrdersResponse } from '../provider/pull.js';

/** The pull transport: a provider fetches its pull rails' orders and acks them (its key as Bearer). */
export const pullApi = {
  pull: defineHttpOperation({
    service: 'provider-delivery',
    name: 'orders.pull',
    actors: ['provider'],
    responses: { 200: PullOrdersResponse },
    errors: ['validation_error'],
    summary:
      'Fetch orders not yet acked (limit default 50, max 100); the first fetch marks an order DELIVERED, it stays re-deliverable until acked',
  }),
  ack: defineHttpOperation({
    service: 'provider-delivery',
    name: 'orders.ack',
    actors: ['provider'],
    responses: { 200: OrderAck },
    errors: ['validation_error', 'resource_not_found', 'invalid_state', 'order_expired'],
    summary:
      'Ack an order with the exact payment.ack or payout.ack; the same ack again answers the same, a different one is 409, an expired order 410',
  }),
  get: defineHttpOperation({
    service: 'provider-delivery',
    name: 'orders.get',
    actors: ['provider'],
    responses: { 200: PullOrder },
    errors: ['resource_not_found'],
    summary:
      "Read one order of the provider's pull rails: its status and, once acked, its ack (webhook orders are answered by the adapter, not here)",
  }),
};

export const ProbeResult = z.object({
  ok: z.boolean(),
  httpStatus: z.number().int().nullable(),
  reason: z.string().nullable(),
  latencyMs: z.number().nullable(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;

/** Every delivery of an order key, one per rail it went to, with each webhook attempt. */
export const OrderDeliveries = z.object({
  deliveries: z.array(
    z
      .object({
        railId: z.string(),
        providerId: z.string(),
        transport: z.enum(['webhook', 'pull']),
        status: z.string(),
        outcome: z.string().nullable(),
        reason: z.string().nullable(),
        deliveryCount: z.number().int(),
        attempts: z.array(z.record(z.string(), z.unknown())),
      })
      .loose(),
  ),
});
export type OrderDeliveries = z.infer<typeof OrderDeliveries>;

export const deliveryOperations = {
  probe: defineOperation({
    service: 'provider-delivery',
    name: 'probe',
    actors: ['service'],
    callers: ['provider-router'],
    request: z.object({ railId: z.string().min(1), endpoint: z.string().min(1), secret: z.string().min(1) }),
    reply: ProbeResult,
    summary: "A rail test's signed health.check with a fresh nonce; never retried",
  }),
  deliveries: defineOperation({
    service: 'provider-delivery',
    name: 'deliveries.get',
    actors: ['service', 'admin'],
    callers: ['gateway'],
    request: z.object({ orderKey: z.string().min(1) }),
    reply: OrderDeliveries,
    errors: ['resource_not_found'],
    summary: 'Every delivery of an order key, with each attempt (for support and operators)',
  }),
};

const deliveryEvent = <T extends string>(type: T, summary: string) =>
  defineEvent({
    type,
    version: 1,
    data: DeliveryOutcomeData,
    producer: 'provider-delivery',
    consumers: ['provider-router'],
    summary,
  });

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
