import { newEventId, type DeliveryClassification, type DeliveryOutcomeData } from '@mmp/protocol';
import { counter, type MetricsRegistry, type PendingEvent } from '@mmp/platform';
import { outcomeEventType, type Order } from '../domain/order.js';

/** The delivery.* event provider-router acts on: accepted, rejected, failed or expired. */
export function outcomeEvent(
  order: Order,
  classification: DeliveryClassification,
  reason: string | null,
  attempts: number,
): PendingEvent {
  const data: DeliveryOutcomeData = {
    orderKey: order.orderKey,
    paymentId: order.paymentId,
    railId: order.railId,
    classification,
    reason,
    attempts,
  };
  return {
    id: newEventId(),
    type: outcomeEventType(classification),
    occurredAt: new Date().toISOString(),
    ...(order.projectId ? { projectId: order.projectId } : {}),
    ...(order.livemode !== null ? { livemode: order.livemode } : {}),
    data,
  };
}

/** How orders ended: ACCEPTED, REJECTED, TIMEOUT, UNREACHABLE, EXPIRED… */
export function countOrderOutcome(metrics: MetricsRegistry, outcome: string) {
  counter(
    metrics,
    'mmp_order_deliveries_total',
    'Orders whose delivery ended, by outcome (ACCEPTED and REJECTED were answered by the provider).',
    ['outcome'],
  ).inc({ outcome });
}
