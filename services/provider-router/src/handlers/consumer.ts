import {
  consumeEvents,
  createIdempotentConsumer,
  type EventConsumer,
  type NatsConnection,
  type Naming,
} from '@mmp/platform';
import { DeliveryOutcomeData, PaymentInitiatedData } from '@mmp/protocol';
import { applyDeliveryOutcome } from './outcomes.js';
import { routePayment } from './routing.js';
import type { RouterDeps } from './deps.js';

const DELIVERY_TYPES = [
  'delivery.accepted',
  'delivery.rejected',
  'delivery.failed',
  'delivery.expired',
] as const;
type DeliveryType = (typeof DELIVERY_TYPES)[number];

/** payment.initiated routes a payment; delivery.* moves its order (accepted, failed over, failed). */
export function startRoutingConsumer(
  deps: RouterDeps,
  nats: { nc: NatsConnection; naming: Naming },
): Promise<EventConsumer> {
  const once = createIdempotentConsumer(deps.db.processed, 'provider-router');
  return consumeEvents({
    nc: nats.nc,
    naming: nats.naming,
    durable: 'provider-router',
    types: ['payment.initiated', ...DELIVERY_TYPES],
    log: deps.log,
    handle: async (event) => {
      await once.once(event.id, async () => {
        if (event.type === 'payment.initiated') {
          await routePayment(deps, PaymentInitiatedData.parse(event.data));
        } else if ((DELIVERY_TYPES as readonly string[]).includes(event.type)) {
          await applyDeliveryOutcome(
            deps,
            event.type as DeliveryType,
            DeliveryOutcomeData.parse(event.data),
            event.id,
          );
        }
      });
    },
  });
}
