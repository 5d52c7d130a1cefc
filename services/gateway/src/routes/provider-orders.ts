import { z } from 'zod';
import type { ForwardedRoute } from './route.js';

const OrderEntry = z.object({
  idempotency_key: z.string(),
  payload: z.record(z.string(), z.unknown()).describe('The payment.execute or payout.execute body'),
  status: z.enum(['PENDING', 'DELIVERED', 'ACKED', 'FAILED', 'EXPIRED']),
  created_at: z.string(),
  expires_at: z.string(),
  delivery_count: z.number().int(),
});

const Ack = z.object({
  type: z.enum(['payment.ack', 'payout.ack']),
  idempotency_key: z.string(),
  status: z.enum(['ACCEPTED', 'REJECTED']),
  reason: z.string().optional(),
});

const keyParams = z.object({ idempotencyKey: z.string() });

/** Pull transport: the provider fetches its own rails' orders and acks them (provider key as Bearer). */
export const providerOrdersRoutes: ForwardedRoute[] = [
  {
    method: 'GET',
    url: '/v1/provider/orders',
    service: 'provider-delivery',
    operation: 'orders.pull',
    auth: 'provider',
    errorForm: 'envelope',
    summary: 'Fetch pending orders; the first fetch marks an order DELIVERED, it stays re-deliverable until acked',
    tag: 'Provider orders',
    schema: {
      query: z.object({
        status: z.literal('pending').optional(),
        limit: z.coerce.number().int().min(1).max(100).optional().describe('Default 50, max 100'),
      }),
      responses: { 200: z.object({ orders: z.array(OrderEntry) }) },
    },
  },
  {
    method: 'POST',
    url: '/v1/provider/orders/:idempotencyKey/ack',
    service: 'provider-delivery',
    operation: 'orders.ack',
    auth: 'provider',
    errorForm: 'envelope',
    summary: 'Ack an order with the exact payment.ack or payout.ack body; the same ack again answers the same',
    tag: 'Provider orders',
    schema: { params: keyParams, body: Ack, responses: { 200: Ack } },
  },
  {
    method: 'GET',
    url: '/v1/provider/orders/:idempotencyKey',
    service: 'provider-delivery',
    operation: 'orders.get',
    auth: 'provider',
    errorForm: 'envelope',
    summary: "Read one order's status and ack",
    tag: 'Provider orders',
    schema: { params: keyParams, responses: { 200: OrderEntry.extend({ ack: Ack.nullable() }) } },
  },
];
