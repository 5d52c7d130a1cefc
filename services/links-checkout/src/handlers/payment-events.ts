import type { ReceivedEvent } from '@mmp/platform';
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

/** What a payment's event means for its session and link use (guarded writes: a replay changes nothing). */
export function createPaymentEventHandler(deps: Deps) {
  return (event: ReceivedEvent<(typeof FOLLOWED_EVENTS)[number]>): Promise<void> =>
    followPayment(deps, event.type, event.data.payment);
}
