import { insertOnce, type HandleResult } from '@mmp/platform';
import type { OrderCreatedData } from '@mmp/protocol';
import { newOrder } from '../domain/order.js';
import { deliverOrder } from './deliver-order.js';
import type { DeliveryDeps } from './deps.js';

/**
 * An order for a rail: stored once per (key, rail), a second announcement finding the record
 * stored first, then delivered by webhook or left for the provider to pull (its waiting
 * fetches woken). Every redelivery
 * of the announcement resumes from the stored record, which is what makes retries and
 * restarts safe.
 */
export async function receiveOrder(
  deps: DeliveryDeps,
  data: OrderCreatedData,
  envelope: { projectId?: string; livemode?: boolean },
): Promise<HandleResult> {
  const order = await insertOnce(deps.orders, newOrder(data, envelope, new Date()));
  if (order.transport === 'webhook') return deliverOrder(deps, order);
  // A provider's long poll answers as soon as its order is there, on whichever replica.
  deps.ordersReady(order.providerId);
}
