import type { HandleResult, ReceivedEvent } from '@mmp/platform';
import type { routerEvents } from '@mmp/protocol';
import type { DeliveryDeps } from '../use-cases/deps.js';
import { receiveOrder } from '../use-cases/receive-order.js';

/** order.created (first routing or failover), parsed by its contract. */
export function orderCreatedHandler(deps: DeliveryDeps) {
  return (event: ReceivedEvent<typeof routerEvents.orderCreated>): Promise<HandleResult> =>
    receiveOrder(deps, event.data, event);
}
