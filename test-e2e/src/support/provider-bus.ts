import {
  connectNats,
  consumeEvents,
  createEventPublisher,
  createLogger,
  type EventConsumer,
  type NatsConnection,
  type ReceivedEvent,
} from '@mmp/platform';
import { createTestBus, samplePaymentExecute } from '@mmp/platform/testing';
import {
  DELIVERY_EVENTS,
  newEvent,
  newPaymentOrderKey,
  routerEvents,
  type OrderCreatedData,
  type ServiceName,
} from '@mmp/protocol';
import type { RunningSystem } from './system.js';

/**
 * A test's own hand on a running system's bus, standing where provider-router stands next to
 * provider-delivery: it announces orders and records every delivery.* outcome, and calls
 * operations as a named caller would (`as('payments')`). `close()` before the system stops.
 */
export async function providerBus(system: RunningSystem, name: string) {
  const log = createLogger({ service: 'test', level: 'silent' });
  const { naming } = system.system;
  const nc: NatsConnection = await connectNats({ url: system.system.env.NATS_URL!, name, log });
  const publish = createEventPublisher(nc, naming, {
    service: 'provider-router',
    types: new Set([routerEvents.orderCreated.type]),
  });
  const outcomes: ReceivedEvent<(typeof DELIVERY_EVENTS)[number]>[] = [];
  const observer: EventConsumer = await consumeEvents({
    nc,
    naming,
    service: 'provider-router',
    durable: `${name}-outcomes`,
    events: DELIVERY_EVENTS,
    log,
    handle: async (event) => void outcomes.push(event),
  });
  return {
    as: (caller: ServiceName) => createTestBus(nc, naming, caller),
    /** The delivery.* outcomes of one order, oldest first, with their type. */
    outcomesOf: (orderKey: string) =>
      outcomes
        .filter((event) => event.data.orderKey === orderKey)
        .map((event) => ({ type: event.type, ...event.data })),
    /** What provider-router announces when it hands an order to a rail (a pull one unless told). */
    async announceOrder(
      providerId: string,
      options: {
        msisdn?: string;
        orderKey?: string;
        railId?: string;
        ttlMs?: number;
        transport?: 'pull' | 'webhook';
      } = {},
    ): Promise<OrderCreatedData> {
      const orderKey = options.orderKey ?? newPaymentOrderKey();
      const data: OrderCreatedData = {
        orderKey,
        paymentId: `pmt_${orderKey.slice(6)}`,
        railId: options.railId ?? 'rail_pull',
        providerId,
        transport: options.transport ?? 'pull',
        payload: samplePaymentExecute(orderKey, options.msisdn),
        expiresAt: new Date(Date.now() + (options.ttlMs ?? 15 * 60_000)).toISOString(),
      };
      await publish(newEvent(routerEvents.orderCreated, data, { occurredAt: new Date().toISOString() }));
      return data;
    },
    async close() {
      await observer.stop();
      await nc.drain();
    },
  };
}
export type ProviderBus = Awaited<ReturnType<typeof providerBus>>;
