import { z } from 'zod';
import { OrderAck, PullOrder, PullOrdersQuery, PullOrdersResponse } from '@mmp/protocol';
import type { ForwardedRoute } from './route.js';

const keyParams = z.object({ idempotencyKey: z.string() });
const pull = {
  service: 'provider-delivery',
  auth: 'provider',
  errorForm: 'envelope',
  tag: 'Provider orders',
} as const;

/** Pull transport: the provider fetches its own rails' orders and acks them (provider key as Bearer). */
export const providerOrdersRoutes: ForwardedRoute[] = [
  {
    ...pull,
    method: 'GET',
    url: '/v1/provider/orders',
    operation: 'orders.pull',
    summary:
      'Fetch orders not yet acked (limit default 50, max 100); the first fetch marks an order DELIVERED, it stays re-deliverable until acked',
    schema: { query: PullOrdersQuery, responses: { 200: PullOrdersResponse } },
  },
  {
    ...pull,
    method: 'POST',
    url: '/v1/provider/orders/:idempotencyKey/ack',
    operation: 'orders.ack',
    summary:
      'Ack an order with the exact payment.ack or payout.ack; the same ack again answers the same, a different one is 409, an expired order 410',
    schema: { params: keyParams, body: OrderAck, responses: { 200: OrderAck } },
  },
  {
    ...pull,
    method: 'GET',
    url: '/v1/provider/orders/:idempotencyKey',
    operation: 'orders.get',
    summary:
      "Read one order of the provider's pull rails: its status and, once acked, its ack (webhook orders are answered by the adapter, not here)",
    schema: { params: keyParams, responses: { 200: PullOrder } },
  },
];
