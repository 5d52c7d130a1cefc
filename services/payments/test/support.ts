import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { z } from 'zod';
import {
  connectNats,
  consumeEvents,
  createEventPublisher,
  createLogger,
  operation,
  startService,
  type EventConsumer,
  type NatsConnection,
  type ReceivedEvent,
  type Resolve,
  type RunningService,
} from '@mmp/platform';
import {
  createTestBus,
  createTestSystem,
  eventually,
  serveStandIn,
  type TestSystem,
} from '@mmp/platform/testing';
import type { Network, ServiceRequest } from '@mmp/protocol';
import {
  PAYMENT_EVENTS,
  eventSubject,
  isAppError,
  newEventId,
  Payment,
  PaymentCreateResponse,
  paymentsApi,
  paymentsForCheckout,
  balanceApi,
  payoutsApi,
  projectEvents,
  refundsApi,
  transferEvents,
  routerEvents,
  routerQueries,
  webhookEndpointsApi,
  type Actor,
  type AppError,
  type MerchantActor,
  type OrderStatus,
  type SettlementReceivedData,
  type ServiceReply,
} from '@mmp/protocol';
import { createPaymentsService, type Env } from '../src/service.js';

export { eventually };

export const PUBLIC_URL = 'http://pages.test:3000';

export function merchant(overrides: Partial<MerchantActor> = {}): MerchantActor {
  return {
    kind: 'merchant',
    projectId: randomUUID(),
    livemode: false,
    scopes: ['payments:write', 'webhooks:write'],
    keyId: `key_${randomUUID()}`,
    ...overrides,
  };
}

/** The merchant operations, by the names the tests use. */
const MERCHANT_API = {
  create: paymentsApi.create,
  list: paymentsApi.list,
  'list-by-user': paymentsApi.listByUser,
  retrieve: paymentsApi.retrieve,
  verify: paymentsApi.verify,
  cancel: paymentsApi.cancel,
  'webhook-endpoints.create': webhookEndpointsApi.create,
  'webhook-endpoints.list': webhookEndpointsApi.list,
  'webhook-endpoints.get': webhookEndpointsApi.get,
  'webhook-endpoints.update': webhookEndpointsApi.update,
  'webhook-endpoints.delete': webhookEndpointsApi.delete,
  'webhook-endpoints.roll-secret': webhookEndpointsApi.rollSecret,
  'webhook-endpoints.deliveries': webhookEndpointsApi.deliveries,
  'webhook-endpoints.redeliver': webhookEndpointsApi.redeliver,
  'refunds.create': refundsApi.create,
  'refunds.list': refundsApi.list,
  'refunds.retrieve': refundsApi.retrieve,
  'payouts.create': payoutsApi.create,
  'payouts.list': payoutsApi.list,
  'payouts.retrieve': payoutsApi.retrieve,
  balance: balanceApi.retrieve,
};
type MerchantOperation = keyof typeof MERCHANT_API;
type Request = z.input<typeof ServiceRequest>;

/** What links-checkout asks of payments; `actor` stands in for the caller's own by default. */
const CHECKOUT = paymentsForCheckout;
const LINKS_CHECKOUT: Actor = { kind: 'service', service: 'links-checkout' };

/** What a test publishes: provider-router's events and the gateway's project.updated. */
const PUBLISHED = new Set(
  [...Object.values(routerEvents), transferEvents.settled, projectEvents.updated].map((event) => event.type),
);

type Options = {
  env?: Record<string, string>;
  /** How merchant webhook hosts resolve for the service: the test's own names, never real DNS. */
  resolve?: Resolve;
};

/**
 * One payments service on its own NATS prefix and data folder, started before the file's
 * tests and stopped after them, with a stand-in for provider-router's `orders.status` (served
 * on demand), publishers of the events payments consumes, and an observer of every payment
 * event it publishes. Nothing answers for links-checkout: payments never calls it.
 */
export function usePaymentsHarness(options: Options = {}) {
  let system: TestSystem;
  let env: Record<string, string>;
  let nc: NatsConnection;
  let service: RunningService<z.infer<Env>>;
  let observer: EventConsumer;
  let router: { stop(): Promise<void> } | undefined;
  let publisher: ReturnType<typeof createEventPublisher>;
  const events: ReceivedEvent<(typeof PAYMENT_EVENTS)[number]>[] = [];
  const orderStatus = new Map<string, z.input<typeof OrderStatus>>();
  /** What the stand-in for provider-router answers to the payout gate (`payouts.route`). */
  const payoutRoute = { available: true, anyRailOfEnvironment: true, reason: 'sandbox rail' };
  const log = createLogger({ service: 'payments-test', level: 'silent' });
  // The service's clock runs with real time, shifted by what a test advanced it.
  let clockOffsetMs = 0;
  const definition = createPaymentsService({
    now: () => new Date(Date.now() + clockOffsetMs),
    resolve: options.resolve,
  });
  const gateway = () => createTestBus(nc, system.naming);
  const checkout = () => createTestBus(nc, system.naming, 'links-checkout');

  beforeAll(async () => {
    system = createTestSystem('pay');
    env = {
      ...system.env,
      PUBLIC_URL,
      EXPIRY_INTERVAL_MS: '100',
      WEBHOOK_RETRY_SCHEDULE_MS: '100,200',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      REQUEST_TIMEOUT_MS: '3000',
      ...options.env,
    };
    service = await startService(definition, env);
    nc = await connectNats({ url: system.env.NATS_URL!, name: 'payments-test', log });
    publisher = createEventPublisher(nc, system.naming, { service: 'provider-router', types: PUBLISHED });
    observer = await consumeEvents({
      nc,
      naming: system.naming,
      service: 'customers',
      durable: `observer-${randomUUID().slice(0, 8)}`,
      events: PAYMENT_EVENTS,
      log,
      handle: async (event) => void events.push(event),
    });
  });
  afterAll(async () => {
    await observer?.stop();
    await service?.stop();
    await router?.stop();
    await nc?.drain();
    await system?.cleanup();
  });

  const harness = {
    get system() {
      return system;
    },
    get env() {
      return env;
    },
    get service() {
      return service;
    },
    events,
    orderStatus,
    payoutRoute,
    /** A merchant operation, as the gateway forwards it. */
    call(name: MerchantOperation, request: Request, actor: Actor, timeoutMs?: number): Promise<ServiceReply> {
      return gateway().request(MERCHANT_API[name], request, { actor, ...(timeoutMs ? { timeoutMs } : {}) });
    },
    /** Any operation the gateway forwards, as it forwards it (admin ones included). */
    gatewayCall(
      contract: (typeof MERCHANT_API)[MerchantOperation] | typeof balanceApi.rebuild,
      request: Request,
      actor: Actor,
    ) {
      return gateway().request(contract, request, { actor });
    },
    /** The AppError a merchant operation fails with; fails the test if it succeeds. */
    async callError(name: MerchantOperation, request: Request, actor: Actor): Promise<AppError> {
      return failure(harness.call(name, request, actor));
    },
    /** What links-checkout asks, as links-checkout asks it. */
    checkout: {
      createForSession: (body: z.input<typeof CHECKOUT.createForSession.request>, actor = LINKS_CHECKOUT) =>
        checkout().request(CHECKOUT.createForSession, body, { actor }),
      initiate: (body: z.input<typeof CHECKOUT.initiate.request>, actor = LINKS_CHECKOUT) =>
        checkout().request(CHECKOUT.initiate, body, { actor }),
      retrieve: (body: z.input<typeof CHECKOUT.retrieve.request>, actor = LINKS_CHECKOUT) =>
        checkout().request(CHECKOUT.retrieve, body, { actor }),
      cancel: (body: z.input<typeof CHECKOUT.cancelForSession.request>, actor = LINKS_CHECKOUT) =>
        checkout().request(CHECKOUT.cancelForSession, body, { actor }),
    },
    /** Publishes an event as its producer would (data unchecked, to send a malformed one too). */
    async publish(type: string, data: unknown, event: { id?: string; occurredAt?: string } = {}) {
      const id = event.id ?? newEventId();
      await publisher({ id, type, occurredAt: event.occurredAt ?? new Date().toISOString(), data });
      return id;
    },
    /**
     * Publishes an event again without its `Nats-Msg-Id`, so the stream keeps the copy: what a
     * consumer meets when the outbox relay re-publishes after the duplicate window.
     */
    async republish(type: string, data: unknown, id: string) {
      const envelope = { id, type, occurredAt: new Date().toISOString(), data };
      nc.publish(system.naming.subject(eventSubject(type)), JSON.stringify(envelope));
      await nc.flush();
    },
    eventsOf(paymentId: string, type?: string) {
      return events.filter((event) => event.data.payment.id === paymentId && (!type || event.type === type));
    },
    /** provider-router's `orders.status`, answering from `orderStatus`, until `stopRouter`. */
    async serveRouter() {
      router = await serveStandIn(nc, system.naming, 'provider-router', [
        operation(
          routerQueries.orderStatus,
          async ({ paymentId }) => orderStatus.get(paymentId) ?? { order: null, settlement: null },
        ),
        operation(routerQueries.payoutRoute, async () => ({ ...payoutRoute })),
      ]);
    },
    async stopRouter() {
      await router?.stop();
      router = undefined;
    },
    /** Moves the service's clock by `ms` (negative moves it back). */
    advanceClock(ms: number) {
      clockOffsetMs += ms;
    },
    async restart(overrides: Record<string, string> = {}) {
      await service.stop();
      service = await startService(definition, { ...env, ...overrides });
    },
  };
  return harness;
}
export type PaymentsHarness = ReturnType<typeof usePaymentsHarness>;

/** The AppError `pending` fails with; fails the test if it succeeds. */
export async function failure(pending: Promise<unknown>): Promise<AppError> {
  try {
    const value = await pending;
    throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
}

export async function createPayment(
  harness: PaymentsHarness,
  actor: MerchantActor,
  body: Record<string, unknown> = {},
): Promise<PaymentCreateResponse> {
  const reply = await harness.call('create', { body: { amount: 5000, ...body } }, actor);
  return PaymentCreateResponse.parse(reply.body);
}

/** A payment the payer has initiated with an Orange Money number. */
export async function initiated(
  harness: PaymentsHarness,
  actor: MerchantActor,
  body: Record<string, unknown> = {},
  choice: { paymentMethod: Network; phone: string } = { paymentMethod: 'ORANGE_MONEY', phone: '690000001' },
) {
  const payment = await createPayment(harness, actor, body);
  await harness.checkout.initiate({ token: payment.token, ...choice });
  return payment;
}

/** A `settlement.received` of the payment, as provider-router publishes it. */
export function settlement(
  paymentId: string,
  status: SettlementReceivedData['status'],
  extra: Partial<SettlementReceivedData> = {},
): SettlementReceivedData {
  return {
    settlementId: `set_${Math.random().toString(36).slice(2)}`,
    paymentId,
    orderKey: `pexec_${paymentId.replace(/-/g, '')}`,
    providerId: 'prov_1',
    status,
    amount: 5000,
    currency: 'XAF',
    network: 'ORANGE_MONEY',
    settledAt: new Date().toISOString(),
    failureCode: null,
    ...extra,
  };
}

/** An `execution.accepted` (or, with a code, `execution.failed`) of the payment. */
export const execution = (paymentId: string, extra: Record<string, unknown> = {}) => ({
  paymentId,
  orderKey: 'pexec_1',
  railId: 'rail_1',
  code: null,
  reason: null,
  ...extra,
});

/** The payment as retrieve shows it, with its timeline (the `events` expansion). */
export async function timeline(harness: PaymentsHarness, token: string, actor: MerchantActor) {
  const reply = await harness.call('retrieve', { params: { token }, query: { 'expand[]': 'events' } }, actor);
  const payment = Payment.parse(reply.body);
  return { ...payment, events: payment.events ?? [] };
}

/**
 * Publishes `project.updated` as the gateway does and waits until payments shows the name
 * (on a payment of the other environment, so the actor's own lists are left as they are).
 */
export async function knownProject(harness: PaymentsHarness, actor: MerchantActor, name: string) {
  const probe = { ...actor, livemode: !actor.livemode };
  const payment = await createPayment(harness, probe);
  await harness.publish(projectEvents.updated.type, {
    project: { id: actor.projectId, name, displayName: name, logoUrl: null },
  });
  await eventually(async () => {
    const reply = await harness.call(
      'retrieve',
      { params: { token: payment.token }, query: { expand: 'project' } },
      probe,
    );
    return Payment.parse(reply.body).project?.name === name;
  });
}
