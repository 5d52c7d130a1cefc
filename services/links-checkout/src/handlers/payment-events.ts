import type { ReceivedEvent } from '@mmp/platform';
import { paymentEvents } from '@mmp/protocol';
import type { Deps } from '../deps.js';
import { followPayment } from '../use-cases/follow-payment.js';

/** The durable consumer of payment events; its name is its position in the stream. */
export const PAYMENT_EVENTS_CONSUMER = 'links-checkout';

/**
 * What a checkout session follows of its payment. Not `payment.created`: a session of this
 * service's own learns its payment from payments' answer when the payer pays, and the session
 * of a merchant's payment is opened when its payer first comes (or its payment gets under way),
 * so most payments, never shown, cost this service nothing.
 */
export const FOLLOWED_EVENTS = [
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
