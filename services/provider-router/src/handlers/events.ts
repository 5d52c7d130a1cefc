import type { ReceivedEvent } from '@mmp/platform';
import { DELIVERY_EVENTS, paymentEvents } from '@mmp/protocol';
import type { RouterDeps } from '../use-cases/deps.js';
import { applyDeliveryOutcome } from '../use-cases/delivery-outcome.js';
import { routePayment } from '../use-cases/route-payment.js';

/** What provider-router consumes: payment.initiated routes a payment, delivery.* moves its order. */
export const ROUTER_EVENTS = [paymentEvents.initiated, ...DELIVERY_EVENTS] as const;

export function routerEventHandler(deps: RouterDeps) {
  return async (event: ReceivedEvent<(typeof ROUTER_EVENTS)[number]>) => {
    if (event.type === 'payment.initiated') await routePayment(deps, event.data);
    else await applyDeliveryOutcome(deps, event.type, event.data, event.id);
  };
}
