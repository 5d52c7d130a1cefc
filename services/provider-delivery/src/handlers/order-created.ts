import { OrderCreatedData } from '@mmp/protocol';
import { DuplicateKeyError, type HandleResult, type ReceivedEvent } from '@mmp/platform';
import { newOrder, orderId, type Order } from '../domain/order.js';
import type { Orders } from '../store/orders.js';
import { deliverByWebhook, type WebhookDeps } from './webhook-delivery.js';

/**
 * `order.created`: store the order once per (key, rail), then deliver it by webhook or
 * leave it for the provider to pull. Every redelivery of the event resumes from the
 * stored record, which is what makes retries and restarts safe.
 */
export async function receiveOrder(deps: WebhookDeps, event: ReceivedEvent): Promise<HandleResult> {
  const parsed = OrderCreatedData.safeParse(event.data);
  if (!parsed.success) {
    // It can never succeed; saying so loudly beats blocking the consumer forever.
    deps.log.error({ eventId: event.id, issues: parsed.error.issues }, 'dropping malformed order.created');
    return;
  }
  const order = await saveOrder(deps.orders, parsed.data, event);
  if (order.transport === 'webhook') return deliverByWebhook(deps, order);
}

async function saveOrder(orders: Orders, data: OrderCreatedData, event: ReceivedEvent): Promise<Order> {
  const order = newOrder(data, event, new Date());
  try {
    await orders.insertOne(order);
    return order;
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    const existing = await orders.findOne({ _id: orderId(data.orderKey, data.railId) });
    if (!existing) throw error;
    return existing;
  }
}
