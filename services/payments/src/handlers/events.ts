import type { ReceivedEvent } from '@mmp/platform';
import { paymentEvents, payoutEvents, refundEvents, routerEvents } from '@mmp/protocol';
import type { Deps } from '../deps.js';
import { applyExecutionOutcome, applySettlement } from '../use-cases/outcomes.js';
import { recordRoutingDecision } from '../use-cases/routing-timeline.js';
import { dispatchPaymentEvent } from '../use-cases/webhook-dispatch.js';

/** provider-router's verdicts and settlements: what moves a payment after its initiation. */
export const LIFECYCLE_EVENTS = [
  routerEvents.executionAccepted,
  routerEvents.executionFailed,
  routerEvents.settlementReceived,
] as const;

/** The ends of a payment, which its merchant hears of through webhooks. */
export const WEBHOOK_EVENTS = [
  paymentEvents.completed,
  paymentEvents.failed,
  paymentEvents.expired,
  paymentEvents.cancelled,
  paymentEvents.refunded,
  paymentEvents.partiallyRefunded,
  refundEvents.completed,
  payoutEvents.completed,
  payoutEvents.failed,
] as const;

/**
 * Drives the lifecycle from provider-router's events. Every write is a compare-and-set,
 * so a redelivered event finds the payment already moved and changes nothing.
 */
export async function onLifecycleEvent(
  deps: Deps,
  event: ReceivedEvent<(typeof LIFECYCLE_EVENTS)[number]>,
): Promise<void> {
  const paymentId = event.data.paymentId;
  const result =
    event.type === 'settlement.received'
      ? await applySettlement(deps, event.data, event.requestId)
      : await applyExecutionOutcome(
          deps,
          event.type === 'execution.accepted' ? 'accepted' : 'failed',
          event.data,
          event.requestId,
        );
  if (result.outcome === 'missing')
    deps.log.warn({ paymentId, type: event.type }, `${event.type} for an unknown payment`);
}

export function onRoutingDecided(
  deps: Deps,
  event: ReceivedEvent<typeof routerEvents.routingDecided>,
): Promise<void> {
  return recordRoutingDecision(deps, event);
}

/** Makes the merchant's deliveries of a payment's end; `dispatched` wakes the sender. */
export async function onPaymentEnded(
  deps: Deps,
  event: ReceivedEvent<(typeof WEBHOOK_EVENTS)[number]>,
  dispatched: () => void,
): Promise<void> {
  if ((await dispatchPaymentEvent(deps, event)) > 0) dispatched();
}
