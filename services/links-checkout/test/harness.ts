import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { z } from 'zod';
import {
  connectNats,
  createEventPublisher,
  createLogger,
  openEmbeddedStore,
  operation,
  startService,
  type NatsConnection,
  type OperationHandler,
  type Resolve,
  type RunningService,
  type Store,
} from '@mmp/platform';
import {
  consumed,
  createTestBus,
  createTestSystem,
  samplePaymentSnapshot,
  serveStandIn,
  TEST_NATS_URL,
  type TestSystem,
} from '@mmp/platform/testing';
import {
  PAYMENT_EVENTS,
  appError,
  checkoutApi,
  isAppError,
  linksApi,
  newEventId,
  pagesApi,
  paymentsForCheckout,
  projectEvents,
  type Actor,
  type AppError,
  type PaymentSnapshot,
  type ServiceReply,
  type ServiceRequest,
} from '@mmp/protocol';
import { createLinksCheckoutService } from '../src/service.js';

export const PUBLIC_URL = 'http://pages.test:3000';
export const PROJECT = {
  id: randomUUID(),
  name: 'shop',
  displayName: 'Boutique Ndolo',
  // Never resolves (RFC 2606): the pages then show the name only; test/logos.test.ts serves a real one.
  logoUrl: 'https://logo.invalid/logo.png',
};

export function merchant(projectId = PROJECT.id, livemode = false): Actor {
  return {
    kind: 'merchant',
    projectId,
    livemode,
    scopes: ['payment_links:write', 'checkout_sessions:write'],
    keyId: 'key_test',
  };
}
export const PUBLIC: Actor = { kind: 'public' };

/** Every operation of links-checkout, by its name (`links.create`, `sessions.pay`…). */
const OPERATIONS = new Map(
  [...Object.values(linksApi), ...Object.values(checkoutApi), ...Object.values(pagesApi)].map((contract) => [
    contract.name,
    contract,
  ]),
);

type Request = z.input<typeof ServiceRequest>;
type Payments = typeof paymentsForCheckout;
type InitiateBody = z.output<Payments['initiate']['request']>;

export function snapshot(overrides: Partial<PaymentSnapshot> = {}): PaymentSnapshot {
  return samplePaymentSnapshot({ projectId: PROJECT.id, ...overrides });
}

/**
 * links-checkout in-process on the real NATS server, started before the file's tests and
 * stopped after them, with a stand-in for what it asks of payments (create-for-session,
 * initiate, cancel-for-session, retrieve-internal) and publishers of the events it follows:
 * payments' and the gateway's `project.updated`, sent for PROJECT before the tests run.
 * With `paymentsAway`, nothing answers for payments until `paymentsUp()`.
 */
export function useHarness(
  extraEnv: Record<string, string> = {},
  options: { paymentsAway?: boolean; resolve?: Resolve } = {},
) {
  const definition = createLinksCheckoutService({ resolve: options.resolve });
  const log = createLogger({ service: 'stand-in', level: 'silent' });
  let system: TestSystem;
  let env: Record<string, string>;
  let service: RunningService;
  let nc: NatsConnection;
  let standIn: { stop(): Promise<void> } | null = null;
  const payments = new Map<string, PaymentSnapshot>();
  const calls = {
    createForSession: [] as unknown[],
    initiate: [] as InitiateBody[],
    cancel: [] as unknown[],
    retrieve: [] as unknown[],
  };
  const paidWith = (body: InitiateBody) => {
    const payment = payments.get(body.token);
    if (!payment) throw appError('resource_not_found', 'no such payment');
    return { payment: { ...payment, paymentMethod: body.paymentMethod, payerPhone: body.phone } };
  };
  const stand = {
    /** What payments answers to initiate; replace to simulate a refusal, `reset()` to undo. */
    initiate: async (body: InitiateBody): Promise<{ payment: PaymentSnapshot }> => paidWith(body),
    reset() {
      stand.initiate = async (body) => paidWith(body);
    },
  };
  const createForSession: OperationHandler<Payments['createForSession']> = async (body) => {
    calls.createForSession.push(body);
    const existing = [...payments.values()].find((p) => p.checkoutSessionId === body.checkoutSessionId);
    if (existing) return existing;
    const payment = snapshot({
      checkoutSessionId: body.checkoutSessionId,
      projectId: body.projectId,
      livemode: body.livemode,
      amount: body.amount,
      currency: body.currency,
    });
    payments.set(payment.token, payment);
    return payment;
  };
  const initiate: OperationHandler<Payments['initiate']> = async (body) => {
    calls.initiate.push(body);
    return stand.initiate(body);
  };
  const cancelForSession: OperationHandler<Payments['cancelForSession']> = async (body) => {
    calls.cancel.push(body);
    const payment = payments.get(body.token);
    if (!payment) throw appError('resource_not_found', 'No such payment.');
    return { ...payment, status: 'CANCELLED' };
  };
  const retrieve: OperationHandler<Payments['retrieve']> = async (body) => {
    calls.retrieve.push(body);
    const payment =
      'token' in body
        ? payments.get(body.token)
        : [...payments.values()].find(
            (p) => 'checkoutSessionId' in body && p.checkoutSessionId === body.checkoutSessionId,
          );
    if (!payment) throw appError('resource_not_found', 'No such payment.');
    return payment;
  };
  const servePayments = () =>
    serveStandIn(nc, system.naming, 'payments', [
      operation(paymentsForCheckout.createForSession, createForSession),
      operation(paymentsForCheckout.initiate, initiate),
      operation(paymentsForCheckout.cancelForSession, cancelForSession),
      operation(paymentsForCheckout.retrieve, retrieve),
    ]);
  const publisher = () =>
    createEventPublisher(nc, system.naming, {
      service: 'payments',
      types: new Set([...PAYMENT_EVENTS, projectEvents.updated].map((event) => event.type)),
    });

  async function call(operationName: string, request: Request, actor: Actor = PUBLIC): Promise<ServiceReply> {
    const contract = OPERATIONS.get(operationName);
    if (!contract) throw new Error(`links-checkout has no operation ${operationName}`);
    return createTestBus(nc, system.naming).request(contract, request, { actor });
  }

  const harness = {
    get system() {
      return system;
    },
    get service() {
      return service;
    },
    payments,
    calls,
    stand,
    call,
    /** The reply body of a successful call, typed for the test. */
    async ok<T = Record<string, unknown>>(
      operationName: string,
      request: Request,
      actor?: Actor,
      status?: number,
    ): Promise<T> {
      const reply = await call(operationName, request, actor);
      if (status !== undefined) expect(reply.status).toBe(status);
      return reply.body as T;
    },
    /** Asserts the call fails with this code (and status), returning the error for more checks. */
    async fails(operationName: string, request: Request, code: string, status: number, actor?: Actor) {
      const error = await call(operationName, request, actor).then(
        (reply) => {
          throw new Error(`expected ${code}, got ${reply.status} ${JSON.stringify(reply.body)}`);
        },
        (caught: unknown) => caught,
      );
      if (!isAppError(error)) throw error;
      expect({ code: error.code, status: error.status }).toEqual({ code, status });
      return error;
    },
    /** Asserts the call answers 404 resource_not_found, as whatever the actor may not see does. */
    notFound: (operationName: string, request: Request, actor?: Actor) =>
      harness.fails(operationName, request, 'resource_not_found', 404, actor),
    /**
     * Publishes a payment event as payments would, returning its id (to replay it);
     * `payment.initiated` with the payer's choice as its execution.
     */
    async paymentEvent(type: string, payment: PaymentSnapshot, id = newEventId()): Promise<string> {
      const execution = {
        network: payment.paymentMethod === 'UNKNOWN' ? 'ORANGE_MONEY' : payment.paymentMethod,
        phone: payment.payerPhone ?? '+237690000001',
        country: 'CM',
      };
      await publisher()({
        id,
        type,
        occurredAt: new Date().toISOString(),
        projectId: payment.projectId,
        livemode: payment.livemode,
        data: { payment, ...(type === 'payment.initiated' ? { execution } : {}) },
      });
      return id;
    },
    /**
     * Pays the session (with an Orange Money number) while payments refuses the initiation
     * with `error`, or loses its answer (`service_unavailable`): the pay fails the same way.
     */
    async payRefused(sessionId: string, error: AppError) {
      stand.initiate = async () => {
        throw error;
      };
      try {
        const body = { paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' };
        return await harness.fails(
          'sessions.pay',
          { params: { id: sessionId }, body },
          error.code,
          error.status,
        );
      } finally {
        stand.reset();
      }
    },
    /** Resolves once every payment event published so far is applied. */
    paymentEventsApplied: () => consumed(nc, system.naming, 'links-checkout'),
    async paymentsUp() {
      standIn ??= await servePayments();
    },
    async paymentsDown() {
      await standIn?.stop();
      standIn = null;
    },
    /**
     * Stops links-checkout and starts it again on the same data, as a new process would;
     * `whileStopped` may set its store as a crash would have left it.
     */
    async restart(whileStopped?: (store: Store) => Promise<void>) {
      await service.stop();
      if (whileStopped) {
        const store = await openEmbeddedStore({ dir: path.join(system.dataDir, 'links-checkout') });
        await whileStopped(store).finally(() => store.close());
      }
      service = await startService(definition, env);
    },
  };

  beforeAll(async () => {
    system = createTestSystem('lc');
    env = { ...system.env, PUBLIC_URL, LINK_SWEEP_INTERVAL_MS: '150', ...extraEnv };
    service = await startService(definition, env);
    nc = await connectNats({ url: TEST_NATS_URL, name: 'stand-in', log });
    if (!options.paymentsAway) standIn = await servePayments();
    // As the gateway announces every project it creates.
    await publisher()({
      id: newEventId(),
      type: projectEvents.updated.type,
      occurredAt: new Date().toISOString(),
      data: { project: PROJECT },
    });
    await consumed(nc, system.naming, 'links-checkout-projects');
  });
  afterAll(async () => {
    await standIn?.stop();
    await service?.stop();
    await nc?.close();
    await system?.cleanup();
  });
  return harness;
}
export type Harness = ReturnType<typeof useHarness>;
