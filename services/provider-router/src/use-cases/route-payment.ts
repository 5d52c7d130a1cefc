import { newPaymentOrderKey, type PaymentInitiatedData } from '@mmp/protocol';
import { paymentExecuteBody } from '../domain/order.js';
import { executionFailedEvent, orderCreatedEvent, routingDecidedEvent } from '../domain/order-events.js';
import type { RouterDeps } from './deps.js';
import { routeNewOrder } from './route-order.js';

/** payment.initiated: one order per payment; a redelivery or a second initiation reuses it. */
export function routePayment(deps: RouterDeps, data: PaymentInitiatedData): Promise<void> {
  const { payment, execution } = data;
  return routeNewOrder(deps, {
    kind: 'payment',
    subject: { ...payment, transactionRef: payment.token },
    logged: { paymentId: payment.id },
    newOrderKey: newPaymentOrderKey,
    channel: { network: execution.network, country: execution.country },
    payload: (orderKey, now) => paymentExecuteBody(orderKey, data, now),
    events: ({ order, step, choice }) => [
      routingDecidedEvent(order, step, order.providerId),
      choice.rail
        ? orderCreatedEvent(order, choice.rail, order.createdAt)
        : executionFailedEvent(order, 'provider_unavailable', choice.reason, order.createdAt),
    ],
  });
}
