import { consumeEvents, type NatsConnection, type Naming, type ReceivedEvent } from '@mmp/platform';
import { ROUTING_EVENT_TYPES, RoutingDecisionData } from '@mmp/protocol';
import { routingEntry } from '../domain/timeline.js';
import { appendTimelineEntry, findPaymentById } from '../store/payments.js';
import type { Deps } from './deps.js';

/**
 * Puts provider-router's routing decision on the payment's timeline. The entry's id is the
 * event's id and the append is a compare-and-set on the version read, so a redelivered event
 * (even to another replica, at the same time) finds its entry and adds nothing.
 */
export async function recordRoutingDecision(deps: Deps, event: ReceivedEvent): Promise<void> {
  const parsed = RoutingDecisionData.safeParse(event.data);
  if (!parsed.success) {
    // Retrying an event that can never parse would only fill the logs.
    deps.log.error({ eventId: event.id, type: event.type }, 'dropping malformed routing event');
    return;
  }
  const decision = parsed.data;
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

/** Its own durable, so a slow or failing timeline write never holds up the lifecycle. */
export function consumeRoutingEvents(deps: Deps, nc: NatsConnection, naming: Naming) {
  return consumeEvents({
    nc,
    naming,
    durable: 'payments-routing',
    types: [...ROUTING_EVENT_TYPES],
    log: deps.log,
    handle: (event) => recordRoutingDecision(deps, event),
  });
}
