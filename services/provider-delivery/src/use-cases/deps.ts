import {
  counter,
  type BusClient,
  type Logger,
  type MetricsRegistry,
  type OutboundHttp,
  type Outbox,
} from '@mmp/platform';
import type { DeliveryClassification } from '@mmp/protocol';
import type { Orders } from '../store/orders.js';
import type { OrderWaiters } from './order-waiters.js';

export type DeliveryConfig = {
  /** One webhook attempt's deadline. */
  timeoutMs: number;
  maxAttempts: number;
  /** Wait before the 2nd attempt, doubled before each next one (with jitter). */
  backoffMs: number;
};

/** What provider-delivery's use-cases work with. */
export type DeliveryDeps = {
  orders: Orders;
  outbox: Outbox;
  /** Calls to providers' endpoints, under the outbound rules. */
  http: OutboundHttp;
  bus: BusClient;
  config: DeliveryConfig;
  log: Logger;
  metrics: MetricsRegistry;
  /** Long polls waiting for their provider's next pull order. */
  waiters: OrderWaiters;
  /** Says, to every replica, that a pull order of the provider is stored. */
  ordersReady(providerId: string): void;
};

/** How orders ended: ACCEPTED, REJECTED, TIMEOUT, UNREACHABLE, EXPIRED… */
export function countOrderOutcome(metrics: MetricsRegistry, outcome: DeliveryClassification) {
  counter(
    metrics,
    'mmp_order_deliveries_total',
    'Orders whose delivery ended, by outcome (ACCEPTED and REJECTED were answered by the provider).',
    ['outcome'],
  ).inc({ outcome });
}

/** Each POST of an order to a provider, by how it was judged (ACCEPTED, TIMEOUT, …). */
export function countAttempt(metrics: MetricsRegistry, classification: DeliveryClassification) {
  counter(
    metrics,
    'mmp_order_delivery_attempts_total',
    'Webhook POSTs of orders to providers, by classification.',
    ['classification'],
  ).inc({ classification });
}
