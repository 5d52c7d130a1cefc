import {
  connectNats,
  consumeEvents,
  createEventPublisher,
  createLogger,
  createServiceClient,
  provisionEventsStream,
  serveOperations,
  type NatsConnection,
  type ReceivedEvent,
} from '@mmp/platform';
import { TEST_NATS_URL, type TestSystem } from '@mmp/platform/testing';
import {
  appError,
  newEventId,
  newPaymentOrderKey,
  type DeliveryOutcomeData,
  type OrderCreatedData,
} from '@mmp/protocol';

export type Rail = { endpoint: string; secret: string };

/**
 * The test's side of the bus: publishes order.created, records every delivery.* event,
 * stands in for provider-router's `rails.credentials`, and calls provider-delivery's
 * operations as a provider would through the gateway.
 */
export async function connectBus(system: TestSystem, rails: Map<string, Rail>) {
  const log = createLogger({ service: 'test', level: 'silent' });
  const nc: NatsConnection = await connectNats({ url: TEST_NATS_URL, name: 'test', log });
  await provisionEventsStream(nc, system.naming);
  const publish = createEventPublisher(nc, system.naming);
  const outcomes: ReceivedEvent[] = [];
  const observer = await consumeEvents({
    nc,
    naming: system.naming,
    durable: 'test-observer',
    types: ['delivery.*'],
    log,
    handle: async (event) => {
      outcomes.push(event);
    },
  });
  let credentialCalls = 0;
  let routerAway = false;
  const standIn = await serveOperations({
    nc,
    naming: system.naming,
    service: 'provider-router',
    version: '0.0.1',
    log,
    operations: {
      'rails.credentials': async (request) => {
        credentialCalls += 1;
        if (routerAway)
          throw appError('service_unavailable', 'The provider-router service is temporarily unavailable.');
        const { railId } = request.body as { railId: string };
        const rail = rails.get(railId);
        if (!rail) throw appError('resource_not_found', 'No such rail.');
        return { status: 200, body: { railId, providerId: 'prv_test', transport: 'webhook', ...rail } };
      },
    },
  });
  const client = createServiceClient({
    nc,
    naming: system.naming,
    caller: 'gateway',
    defaultTimeoutMs: 5000,
  });

  return {
    nc,
    outcomes,
    credentialCalls: () => credentialCalls,
    /** Makes rails.credentials answer service_unavailable, as when provider-router is down. */
    setRouterAway: (away: boolean) => {
      routerAway = away;
    },
    async publishOrder(overrides: Partial<OrderCreatedData> = {}): Promise<OrderCreatedData> {
      const orderKey = overrides.orderKey ?? newPaymentOrderKey();
      const data: OrderCreatedData = {
        orderKey,
        paymentId: `pay_${orderKey.slice(6)}`,
        railId: 'rail_1',
        providerId: 'prv_test',
        transport: 'webhook',
        payload: executeBody(orderKey),
        expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
        ...overrides,
      };
      await publish({
        id: newEventId(),
        type: 'order.created',
        occurredAt: new Date().toISOString(),
        projectId: 'prj_1',
        livemode: false,
        data,
      });
      return data;
    },
    outcomesOf(orderKey: string): (DeliveryOutcomeData & { type: string })[] {
      return outcomes
        .filter((event) => (event.data as DeliveryOutcomeData).orderKey === orderKey)
        .map((event) => ({ type: event.type, ...(event.data as DeliveryOutcomeData) }));
    },
    /** Calls an operation as the gateway forwards a provider's HTTP request. */
    asProvider(providerId: string) {
      const actor = { kind: 'provider' as const, providerId };
      return {
        pull: (query: Record<string, string> = {}) =>
          client.call('provider-delivery', 'orders.pull', { query }, { actor }),
        get: (key: string) =>
          client.call('provider-delivery', 'orders.get', { params: { idempotencyKey: key } }, { actor }),
        ack: (key: string, body: unknown) =>
          client.call(
            'provider-delivery',
            'orders.ack',
            { params: { idempotencyKey: key }, body },
            { actor },
          ),
      };
    },
    deliveries: (orderKey: string) =>
      client.command<{ deliveries: DeliveryRecord[] }>('provider-delivery', 'deliveries.get', { orderKey }),
    probe: (body: { railId: string; endpoint: string; secret: string }) =>
      client.command<ProbeReply>('provider-delivery', 'probe', body, { timeoutMs: 10_000 }),
    async close() {
      await observer.stop();
      await standIn.stop();
      await nc.drain();
    },
  };
}
export type Bus = Awaited<ReturnType<typeof connectBus>>;
export type DeliveryRecord = {
  railId: string;
  status: string;
  outcome: string | null;
  attempts: Record<string, unknown>[];
};
export type ProbeReply = { ok: boolean; httpStatus: number | null; reason: string | null; latencyMs: number };

export function executeBody(orderKey: string, msisdn = '+237690000001') {
  return {
    protocol_version: '1',
    type: 'payment.execute',
    idempotency_key: orderKey,
    amount: '5000',
    currency: 'XAF',
    network: 'ORANGE_MONEY',
    country: 'CM',
    payee: { msisdn },
    transaction_ref: `pay_${orderKey.slice(6)}`,
    timestamp: Math.floor(Date.now() / 1000),
  };
}
