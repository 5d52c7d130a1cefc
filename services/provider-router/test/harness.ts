import { afterAll } from 'vitest';
import {
  consumeEvents,
  createEventPublisher,
  startService,
  type BusClient,
  type Resolve,
  type ReceivedEvent,
} from '@mmp/platform';
import {
  answerOrders,
  createTestBus,
  createTestSystem,
  eventually,
  samplePaymentSnapshot,
  startProviderEndpoint,
} from '@mmp/platform/testing';
import {
  DELIVERY_EVENTS,
  OrderCreatedData,
  hexHmac,
  isAppError,
  newEvent,
  paymentEvents,
  providerPortalApi,
  routerEvents,
  routerQueries,
  settlementsApi,
  transferEvents,
  type Actor,
  type AppError,
  type DeliveryOutcomeData,
  type EventContract,
  type Network,
  type OperationContract,
  type PaymentSnapshot,
  type ServiceName,
  type TransferRequestedData,
} from '@mmp/protocol';
import type { z } from 'zod';
import { providerRouter } from '../src/service.js';

export const ADMIN: Actor = { kind: 'admin' };
export const providerActor = (providerId: string): Actor => ({ kind: 'provider', providerId });

/** What provider-router publishes (transfer.settled included), recorded by the observers. */
const ROUTER_EVENTS: readonly EventContract[] = [...Object.values(routerEvents), transferEvents.settled];

/** Resolves to the AppError `promise` rejects with; fails the test when it resolves. */
export async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => new Error('the call succeeded'),
    (reason: unknown) => reason,
  );
  if (!isAppError(error)) throw error;
  return error;
}

/**
 * One provider-router on its own NATS prefix; a bus calling it as each contract's caller
 * would; publishers standing in for payments and provider-delivery; a recorder of what it
 * emits; and a provider's endpoint on loopback (the development switch is on unless
 * `extraEnv` turns it off) whose `/mmp` answers health checks.
 */
export async function startRouter(
  extraEnv: Record<string, string> = {},
  options: { resolve?: Resolve } = {},
) {
  const system = createTestSystem('prouter');
  const running = await startService(providerRouter(options), {
    ...system.env,
    ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true',
    // Long enough for a first health check on a loaded machine; the silent endpoint's test waits it out.
    RAIL_TEST_TIMEOUT_MS: '3000',
    ...extraEnv,
  });
  const { nc, naming, log } = running.context;
  const endpoint = await startProviderEndpoint();
  endpoint.on('/mmp', answerOrders('ACCEPTED'));
  const buses = new Map<ServiceName, BusClient>();
  const busOf = (caller: ServiceName) =>
    buses.get(caller) ?? buses.set(caller, createTestBus(nc, naming, caller)).get(caller)!;
  const publishAs = (service: ServiceName, events: readonly EventContract[]) =>
    createEventPublisher(nc, naming, { service, types: new Set(events.map((event) => event.type)) });
  const asPayments = publishAs('payments', [paymentEvents.initiated, transferEvents.requested]);
  const asDelivery = publishAs('provider-delivery', DELIVERY_EVENTS);
  const seen: ReceivedEvent[] = [];
  // A consumer is admitted only for contracts naming it: one observer per consuming service.
  const observers = await Promise.all(
    (['payments', 'provider-delivery'] as const).map((service) =>
      consumeEvents({
        nc,
        naming,
        service,
        log,
        durable: `observer-${service}`,
        events: ROUTER_EVENTS.filter((event) => event.consumers.includes(service)),
        handle: async (event) => void seen.push(event),
      }),
    ),
  );

  const harness = {
    system,
    running,
    endpoint,
    seen,
    /** Calls an operation as its contract's first caller would, for `actor`. */
    async call<C extends OperationContract>(contract: C, request: z.input<C['request']>, actor: Actor) {
      return busOf(contract.callers[0]!).request(contract, request, { actor, timeoutMs: 10_000 });
    },
    failure<C extends OperationContract>(contract: C, request: z.input<C['request']>, actor: Actor) {
      return failureOf(harness.call(contract, request, actor));
    },
    /** A webhook rail's declaration at the endpoint's `/mmp`, in CM, XAF. */
    webhookRail(overrides: Record<string, unknown> = {}): Record<string, unknown> {
      return {
        transport: 'webhook',
        endpoint: endpoint.url('/mmp'),
        networks: ['ORANGE_MONEY', 'MTN_MOMO'],
        countries: ['CM'],
        currencies: ['XAF'],
        environment: 'sandbox',
        priority: 10,
        ...overrides,
      };
    },
    async createProvider(name = 'Acme Mobile') {
      return harness.call(routerQueries.createProvider, { name }, ADMIN);
    },
    async createRail(providerId: string, body: Record<string, unknown>) {
      const reply = await harness.call(providerPortalApi.createRail, { body }, providerActor(providerId));
      return reply.body as { id: string; status: string; secret?: string; [key: string]: unknown };
    },
    /** A webhook rail made ACTIVE through a passing test. */
    async activeRail(providerId: string, overrides: Record<string, unknown> = {}) {
      const rail = await harness.createRail(providerId, harness.webhookRail(overrides));
      const params = { railId: rail.id };
      await harness.call(providerPortalApi.testRail, { params }, providerActor(providerId));
      await harness.call(providerPortalApi.activateRail, { params }, providerActor(providerId));
      return rail;
    },
    async initiate(
      payment: PaymentSnapshot,
      execution: { network: Network; phone: string; country: string } = {
        network: 'ORANGE_MONEY',
        phone: '+237690000001',
        country: 'CM',
      },
    ) {
      const event = newEvent(
        paymentEvents.initiated,
        { payment, execution },
        { occurredAt: new Date().toISOString(), projectId: payment.projectId, livemode: payment.livemode },
      );
      await asPayments(event);
      return event.id;
    },
    /** transfer.requested as payments publishes it once a refund or payout is debited. */
    async requestTransfer(data: TransferRequestedData) {
      const event = newEvent(transferEvents.requested, data, {
        occurredAt: new Date().toISOString(),
        projectId: data.projectId,
        livemode: data.livemode,
      });
      await asPayments(event);
      return event.id;
    },
    /** A payment initiated in `country` (each test routes in its own, so rails of other tests never serve it). */
    async routed(
      country: string,
      overrides: Partial<PaymentSnapshot> = {},
      network: Network = 'ORANGE_MONEY',
    ) {
      const payment = paymentSnapshot(overrides);
      await harness.initiate(payment, { network, phone: '+237690000001', country });
      return payment;
    },
    /** The `count`-th order.created of a payment (a failover announces the order again). */
    async orderOf(paymentId: string, count = 1) {
      const events = await harness.waitFor('order.created', paymentId, count);
      return OrderCreatedData.parse(events[count - 1]!.data);
    },
    async status(paymentId: string) {
      return harness.call(routerQueries.orderStatus, { paymentId }, { kind: 'service', service: 'payments' });
    },
    async deliver(
      type: (typeof DELIVERY_EVENTS)[number]['type'],
      data: Omit<DeliveryOutcomeData, 'reason' | 'attempts'> & { reason?: string | null },
    ) {
      const contract = DELIVERY_EVENTS.find((event) => event.type === type)!;
      await asDelivery(
        newEvent(contract, { reason: null, attempts: 1, ...data }, { occurredAt: new Date().toISOString() }),
      );
    },
    /** A delivery outcome of the order's current rail. */
    async outcome(
      type: (typeof DELIVERY_EVENTS)[number]['type'],
      order: Pick<OrderCreatedData, 'orderKey' | 'paymentId' | 'railId'>,
      classification: DeliveryOutcomeData['classification'],
      reason: string | null = null,
    ) {
      await harness.deliver(type, {
        orderKey: order.orderKey,
        paymentId: order.paymentId,
        railId: order.railId,
        classification,
        reason,
      });
    },
    /** Events of a payment, or of a transfer by its `rf_…`/`po_…` id (its orders carry it as paymentId). */
    events(type: string, paymentId: string) {
      return seen.filter((event) => {
        const data = event.data as { paymentId?: string; transferId?: string };
        return event.type === type && (data.paymentId ?? data.transferId) === paymentId;
      });
    },
    async waitFor(type: string, paymentId: string, count = 1) {
      return eventually(async () => {
        const found = harness.events(type, paymentId);
        return found.length >= count ? found : undefined;
      });
    },
    async settle(
      providerId: string,
      secret: string,
      body: unknown,
      options: { raw?: string; signature?: string } = {},
    ) {
      const rawBody = options.raw ?? JSON.stringify(body);
      const headers = { 'x-service-signature': options.signature ?? hexHmac(secret, rawBody) };
      return harness.call(
        settlementsApi.ingest,
        { params: { providerId }, rawBody, body, headers },
        { kind: 'public' },
      );
    },
    settleFailure(
      providerId: string,
      secret: string,
      body: unknown,
      options: { raw?: string; signature?: string } = {},
    ) {
      return failureOf(harness.settle(providerId, secret, body, options));
    },
  };

  afterAll(async () => {
    for (const observer of observers) await observer.stop();
    await endpoint.close();
    await running.stop();
    await system.cleanup();
  });
  return harness;
}
export type Harness = Awaited<ReturnType<typeof startRouter>>;

export function paymentSnapshot(overrides: Partial<PaymentSnapshot> = {}): PaymentSnapshot {
  return samplePaymentSnapshot({
    projectId: 'proj_1',
    paymentMethod: 'ORANGE_MONEY',
    payerPhone: '+237690000001',
    ...overrides,
  });
}

/** A provider's SettlementEvent for order `orderKey`: 5000 XAF on Orange Money, COMPLETED now. */
export function settlementEvent(orderKey: string, overrides: Record<string, unknown> = {}) {
  return {
    protocol_version: '1',
    idempotency_key: orderKey,
    transaction_ref: `OM-${orderKey}`,
    amount: '5000',
    currency: 'XAF',
    status: 'COMPLETED',
    network: 'ORANGE_MONEY',
    settled_at: new Date().toISOString(),
    ...overrides,
  };
}
