import type { OrderStatus } from '@mmp/protocol';
import { orderStatusView } from '../domain/order.js';
import { settlementData } from '../domain/order-events.js';
import { findOrderOfPayment } from '../store/orders.js';
import { findOutcomeOf } from '../store/settlements.js';
import type { RouterDeps } from './deps.js';

/** A payment's order and the settlement that decided it, for payments' verify. */
export async function orderStatus(deps: RouterDeps, paymentId: string): Promise<OrderStatus> {
  const order = await findOrderOfPayment(deps.db, paymentId);
  if (!order) return { order: null, settlement: null };
  const outcome = await findOutcomeOf(deps.db, order._id);
  return { order: orderStatusView(order), settlement: outcome ? settlementData(outcome, order) : null };
}
