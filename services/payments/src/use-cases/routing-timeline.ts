import type { RoutingDecisionData } from '@mmp/protocol';
import { routingEntry } from '../domain/timeline.js';
import { appendTimelineEntry, findPaymentById } from '../store/payments.js';
import type { Deps } from '../deps.js';

/**
 * Puts provider-router's routing decision on the payment's timeline. The entry's id is the
 * event's id and the append is a compare-and-set on the version read, so a redelivered event
 * (even to another replica, at the same time) finds its entry and adds nothing.
 */
export async function recordRoutingDecision(
  deps: Deps,
  event: { id: string; occurredAt: string; data: RoutingDecisionData },
): Promise<void> {
  const decision = event.data;
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const payment = await findPaymentById(deps.db, decision.paymentId);
    if (!payment) {
      deps.log.warn({ paymentId: decision.paymentId }, 'routing decision for an unknown payment');
      return;
    }
    if (payment.timeline.some((entry) => entry.id === event.id)) return;
    const entry = routingEntry(event.id, event.occurredAt, decision, payment.status);
    if (await appendTimelineEntry(deps.db, payment, entry, deps.now().toISOString())) return;
  }
  throw new Error(`payment ${decision.paymentId} kept changing under concurrent writers`);
}
