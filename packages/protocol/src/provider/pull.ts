import { z } from 'zod';
import { DateTime, queryInt } from '../merchant/common.js';
import { ExecutionOrder, OrderAck } from './protocol-v1.js';

/** The specification's own casing: pending, DELIVERED, acked, expired. */
export const PullOrderStatus = z.enum(['pending', 'DELIVERED', 'acked', 'expired']);
export type PullOrderStatus = z.infer<typeof PullOrderStatus>;

export const PullOrder = z.strictObject({
  idempotency_key: z.string().min(1),
  payload: ExecutionOrder,
  status: PullOrderStatus,
  created_at: DateTime,
  expires_at: DateTime,
  delivery_count: z.number().int().nonnegative(),
  /** The stored ack, once the order is acked. */
  ack: OrderAck.optional(),
});
export type PullOrder = z.infer<typeof PullOrder>;

export const PullOrdersResponse = z.strictObject({ orders: z.array(PullOrder) });
export type PullOrdersResponse = z.infer<typeof PullOrdersResponse>;

export const PULL_DEFAULT_LIMIT = 50;
export const PULL_MAX_LIMIT = 100;

/** The longest a fetch may wait for an order (`wait_ms`): below common proxies' idle timeouts. */
export const PULL_MAX_WAIT_MS = 20_000;

/**
 * `status=pending` returns orders not yet acked (pending and DELIVERED alike: re-deliverable
 * until acked). `wait_ms` makes it a long poll: with nothing to return, the fetch waits up
 * to that long and answers as soon as an order arrives (an empty list when none did).
 */
export const PullOrdersQuery = z.strictObject({
  status: z.literal('pending', { error: 'status must be pending' }).default('pending'),
  limit: queryInt('limit', 1, PULL_MAX_LIMIT).default(PULL_DEFAULT_LIMIT),
  wait_ms: queryInt('wait_ms', 0, PULL_MAX_WAIT_MS).default(0),
});
export type PullOrdersQuery = z.output<typeof PullOrdersQuery>;
