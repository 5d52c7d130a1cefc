import type { OperationHandler } from '@mmp/platform';
import { appError, type deliveryOperations } from '@mmp/protocol';
import { allAttempts } from '../domain/order.js';
import { deliveriesOf, type Orders } from '../store/orders.js';

/**
 * `deliveries.get` (internal, for support and the admin): every delivery of an order key,
 * one per rail it was sent to, with each webhook attempt (status, latency, classification).
 */
export function deliveriesHandler(orders: Orders): OperationHandler<typeof deliveryOperations.deliveries> {
  return async ({ orderKey }) => {
    const records = await deliveriesOf(orders, orderKey);
    if (records.length === 0) throw appError('resource_not_found', 'No order with this key.');
    return {
      deliveries: records.map((order) => ({
        railId: order.railId,
        providerId: order.providerId,
        transport: order.transport,
        status: order.status,
        outcome: order.outcome,
        reason: order.reason,
        deliveryCount: order.deliveryCount,
        attempts: allAttempts(order).map((attempt) => ({ ...attempt, at: attempt.at.toISOString() })),
      })),
    };
  };
}
