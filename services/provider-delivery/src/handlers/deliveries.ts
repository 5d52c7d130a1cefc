import { appError, parseOrThrow } from '@mmp/protocol';
import type { Operation } from '@mmp/platform';
import { z } from 'zod';
import { allAttempts } from '../domain/order.js';
import type { Orders } from '../store/orders.js';

const DeliveriesQuery = z.object({ orderKey: z.string().min(1) });

/**
 * `deliveries.get` (internal, for support and the admin): every delivery of an order key,
 * one per rail it was sent to, with each webhook attempt (status, latency, classification).
 */
export function getDeliveries(orders: Orders): Operation {
  return async (request, context) => {
    if (context.actor.kind !== 'service' && context.actor.kind !== 'admin') {
      throw appError('insufficient_permissions', 'Delivery records are internal.');
    }
    const { orderKey } = parseOrThrow(DeliveriesQuery, request.body);
    const records = await orders.find({ orderKey }, { sort: { createdAt: 1 } });
    if (records.length === 0) throw appError('resource_not_found', 'No order with this key.');
    return {
      status: 200,
      body: {
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
      },
    };
  };
}
