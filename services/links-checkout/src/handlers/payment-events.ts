import { createIdempotentConsumer, type ReceivedEvent } from '@mmp/platform';
import { paymentEvents } from '@mmp/protocol';
import type { Deps } from '../deps.js';
import { followPayment } from '../use-cases/follow-payment.js';

/** The durable consumer of payment events; its name is its position in the stream. */
export const PAYMENT_EVENTS_CONSUMER = 'links-checkout';

/** What a checkout session follows of its payment. */
export const FOLLOWED_EVENTS = [
  paymentEvents.created,
  paymentEvents.initiated,
  paymentEvents.processing,
  paymentEvents.completed,
  paymentEvents.failed,
  paymentEvents.expired,
  paymentEvents.cancelled,
] as const;

/** Each event applied once per id, on top of the guarded writes that make a replay harmless anyway. */
export function createPaymentEventHandler(deps: Deps) {
  const once = createIdempotentConsumer(deps.db.processedEvents, PAYMENT_EVENTS_CONSUMER);
  return async (event: ReceivedEvent<(typeof FOLLOWED_EVENTS)[number]>): Promise<void> => {
    await once.once(event.id, () => followPayment(deps, event.type, event.data.payment));
  };
}
