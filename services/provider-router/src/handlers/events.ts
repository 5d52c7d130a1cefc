import type { ReceivedEvent } from '@mmp/platform';
import { CHANNEL_BADGE_EVENTS, DELIVERY_EVENTS, paymentEvents, transferEvents } from '@mmp/protocol';
import type { RouterDeps } from '../use-cases/deps.js';
import { applyChannelBadge } from '../use-cases/certification.js';
import { applyDeliveryOutcome } from '../use-cases/delivery-outcome.js';
import { routePayment } from '../use-cases/route-payment.js';
import { routeTransfer } from '../use-cases/route-transfer.js';

/**
 * What provider-router consumes: payment.initiated routes a payment, transfer.requested a
 * refund or payout, delivery.* moves its order, certification.channel-* sets a channel's badge.
 */
export const ROUTER_EVENTS = [
  paymentEvents.initiated,
  transferEvents.requested,
  ...DELIVERY_EVENTS,
  ...CHANNEL_BADGE_EVENTS,
] as const;

export function routerEventHandler(deps: RouterDeps) {
  return async (event: ReceivedEvent<(typeof ROUTER_EVENTS)[number]>) => {
    if (event.type === 'payment.initiated') await routePayment(deps, event.data);
    else if (event.type === 'transfer.requested') await routeTransfer(deps, event.data);
    else if (event.type === 'certification.channel-certified')
      await applyChannelBadge(deps, true, event.data);
    else if (event.type === 'certification.channel-uncertified')
      await applyChannelBadge(deps, false, event.data);
    else await applyDeliveryOutcome(deps, event.type, event.data, event.id);
  };
}

/**
 * Events handled side by side, each lane in stream order: a payment or a transfer is routed
 * on its own; a rail's delivery outcomes go one after another, since each one updates that
 * rail's breaker (compare-and-set, which parallel outcomes of one busy rail would keep
 * losing); channel badges keep their order.
 */
export function routerEventLane(event: ReceivedEvent<(typeof ROUTER_EVENTS)[number]>): string {
  if (event.type === 'payment.initiated') return `payment:${event.data.payment.id}`;
  if (event.type === 'transfer.requested') return `transfer:${event.data.transferId}`;
  if (event.type === 'certification.channel-certified' || event.type === 'certification.channel-uncertified')
    return 'channels';
  return `rail:${event.data.railId}`;
}
