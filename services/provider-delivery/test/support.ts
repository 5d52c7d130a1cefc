import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import {
  connectNats,
  consumeEvents,
  createEventPublisher,
  createLogger,
  operation,
  provisionEventsStream,
  serveOperations,
  type NatsConnection,
  type ReceivedEvent,
} from '@mmp/platform';
import {
  TEST_NATS_URL,
  createTestBus,
  createTestSystem,
  eventually,
  samplePaymentExecute,
  spawnServiceProcess,
  startProviderEndpoint,
  type ChildService,
  type EndpointBehaviour,
  type ProviderEndpoint,
  type TestSystem,
} from '@mmp/platform/testing';
import {
  DELIVERY_EVENTS,
  appError,
  newEvent,
  newPaymentOrderKey,
  deliveryOperations,
  pullApi,
  routerEvents,
  routerQueries,
  type OrderCreatedData,
} from '@mmp/protocol';

export type Rail = { endpoint: string; secret: string };

/**
 * The test's side of the bus: publishes order.created as provider-router does, records
 * every delivery.* event, stands in for provider-router's `rails.credentials` (answering
 * from `rails`), and calls provider-delivery's operations as the gateway forwards them.
 */
export async function connectBus(system: TestSystem, rails: Map<string, Rail>) {
  const log = createLogger({ service: 'test', level: 'silent' });
  const nc: NatsConnection = await connectNats({ url: TEST_NATS_URL, name: 'test', log });
  const { naming } = system;
  await provisionEventsStream(nc, naming);
  const publish = createEventPublisher(nc, naming, {
    service: 'provider-router',
    types: new Set([routerEvents.orderCreated.type]),
  });
  const outcomes: ReceivedEvent<(typeof DELIVERY_EVENTS)[number]>[] = [];
  const observer = await consumeEvents({
    nc,
    naming,
    service: 'provider-router',
    durable: 'test-observer',
    events: DELIVERY_EVENTS,
    log,
    handle: async (event) => void outcomes.push(event),
  });
  let credentialCalls = 0;
  let routerAway = false;
  const standIn = await serveOperations({
    nc,
    naming,
    service: 'provider-router',
    version: '0.0.1',
    log,
    operations: [
      operation(routerQueries.railCredentials, async ({ railId }) => {
        credentialCalls += 1;
        if (routerAway)
          throw appError('service_unavailable', 'The provider-router service is temporarily unavailable.');
        const rail = rails.get(railId);
        if (!rail) throw appError('resource_not_found', 'Rail not found.');
        return { railId, providerId: 'prv_test', transport: 'webhook' as const, ...rail };
      }),
    ],
  });
  const client = createTestBus(nc, naming);

  const bus = {
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
        payload: samplePaymentExecute(orderKey),
        expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
        ...overrides,
      };
      const meta = { occurredAt: new Date().toISOString(), projectId: 'prj_1', livemode: false };
      await publish(newEvent(routerEvents.orderCreated, data, meta));
      return data;
    },
    outcomesOf(orderKey: string) {
      return outcomes
        .filter((event) => event.data.orderKey === orderKey)
        .map((event) => ({ type: event.type, ...event.data }));
    },
    /** Resolves once `count` outcomes of the order arrived, then returns them. */
    async settled(orderKey: string, count = 1, timeoutMs = 15_000) {
      await eventually(async () => bus.outcomesOf(orderKey).length >= count, timeoutMs, 20);
      return bus.outcomesOf(orderKey);
    },
    /** Calls the pull operations as the gateway forwards a provider's HTTP request. */
    asProvider(providerId: string) {
      const options = { actor: { kind: 'provider' as const, providerId } };
      const params = (key: string) => ({ idempotencyKey: key });
      return {
        pull: (query: Record<string, string> = {}) =>
          client.request(pullApi.pull, { query }, { ...options, heldMs: Number(query.wait_ms ?? 0) }),
        get: (key: string) => client.request(pullApi.get, { params: params(key) }, options),
        ack: (key: string, body: unknown) =>
          client.request(pullApi.ack, { params: params(key), body }, options),
      };
    },
    deliveries: (orderKey: string) => client.request(deliveryOperations.deliveries, { orderKey }),
    async close() {
      await observer.stop();
      await standIn.stop();
      await nc.drain();
    },
  };
  return bus;
}
export type Bus = Awaited<ReturnType<typeof connectBus>>;

/**
 * provider-delivery as its own process on `system`, ready, for a test that needs what only a
 * process gives (SIGKILL, NODE_EXTRA_CA_CERTS read at start). The development switch is on:
 * the test's endpoints are on loopback.
 */
export async function spawnDelivery(
  { system, bus }: { system: TestSystem; bus: Bus },
  env: Record<string, string>,
): Promise<ChildService> {
  const child = spawnServiceProcess({
    name: 'provider-delivery',
    main: fileURLToPath(new URL('../src/main.ts', import.meta.url)),
    env: { ...process.env, ...system.env, LOG_LEVEL: 'warn', ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true', ...env },
    naming: system.naming,
    nc: async () => bus.nc,
  });
  await child.waitReady();
  return child;
}

/**
 * What a test file of deliveries to a provider's endpoint stands on: its own system, the
 * provider's endpoint (HTTPS with `tls`) and the test's bus, opened before the file's tests
 * and closed after them (after the file's own afterAll, which stops the service first).
 * `rail()` adds a rail whose endpoint answers as told, signed with `secret`.
 */
export function useProviderEndpoint(
  label: string,
  { secret, tls }: { secret: string; tls?: { key: Buffer; cert: Buffer } },
) {
  const system = createTestSystem(label);
  const rails = new Map<string, Rail>();
  let opened: { endpoint: ProviderEndpoint; bus: Bus } | undefined;
  const open = () => {
    if (!opened) throw new Error('the endpoint opens before the tests; call useProviderEndpoint at the top');
    return opened;
  };
  beforeAll(async () => {
    const endpoint = await startProviderEndpoint(tls);
    opened = { endpoint, bus: await connectBus(system, rails) };
  });
  afterAll(async () => {
    await opened?.bus.close();
    await opened?.endpoint.close();
    await system.cleanup();
  });
  return {
    system,
    rails,
    get endpoint() {
      return open().endpoint;
    },
    get bus() {
      return open().bus;
    },
    rail(railId: string, path: string, behaviour: EndpointBehaviour) {
      open().endpoint.on(path, behaviour);
      rails.set(railId, { endpoint: open().endpoint.url(path), secret });
    },
  };
}
