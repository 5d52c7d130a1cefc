import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  connectNats,
  createEventPublisher,
  createLogger,
  createServiceClient,
  openEmbeddedStore,
  serveOperations,
  startService,
  type Operation,
  type Store,
} from '@mmp/platform';
import { createTestSystem, samplePaymentSnapshot, TEST_NATS_URL } from '@mmp/platform/testing';
import {
  appError,
  isAppError,
  newEventId,
  type Actor,
  type PaymentSnapshot,
  type ServiceReply,
} from '@mmp/protocol';
import { expect } from 'vitest';
import { linksCheckoutService } from '../src/service.js';

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
export const SERVICE: Actor = { kind: 'service', service: 'payments' };

type InitiateBody = { token: string; paymentMethod: string; phone: string };

/**
 * links-checkout in-process on the real NATS server, with stand-ins answering for the
 * gateway (projects.get) and payments (create-for-session, initiate, cancel-for-session,
 * retrieve-internal). With `paymentsAway`, nothing answers for payments until `paymentsUp()`.
 */
export async function startHarness(extraEnv: Record<string, string> = {}, options = { paymentsAway: false }) {
  const system = createTestSystem('lc');
  const env = { ...system.env, PUBLIC_URL, LINK_SWEEP_INTERVAL_MS: '150', ...extraEnv };
  let service = await startService(linksCheckoutService, env);
  const log = createLogger({ service: 'stand-in', level: 'silent' });
  const nc = await connectNats({ url: TEST_NATS_URL, name: 'stand-in', log });
  const payments = new Map<string, PaymentSnapshot>();
  const calls = {
    createForSession: [] as unknown[],
    initiate: [] as InitiateBody[],
    cancel: [] as unknown[],
    retrieve: [] as { token?: string; checkoutSessionId?: string }[],
  };
  const stand = {
    /** What payments answers to initiate; replace to simulate a refusal. */
    initiate: async (body: InitiateBody): Promise<unknown> => {
      const payment = payments.get(body.token);
      if (!payment) throw appError('resource_not_found', 'no such payment');
      return { payment: { ...payment, paymentMethod: body.paymentMethod, payerPhone: body.phone } };
    },
  };
  const paymentsOps: Record<string, Operation> = {
    'create-for-session': async (request) => {
      const body = request.body as {
        checkoutSessionId: string;
        projectId: string;
        livemode: boolean;
        amount: number;
        currency: string;
      };
      calls.createForSession.push(body);
      const existing = [...payments.values()].find((p) => p.checkoutSessionId === body.checkoutSessionId);
      if (existing) return { status: 200, body: existing };
      const payment = snapshot({
        checkoutSessionId: body.checkoutSessionId,
        projectId: body.projectId,
        livemode: body.livemode,
        amount: body.amount,
        currency: body.currency,
      });
      payments.set(payment.token, payment);
      return { status: 201, body: payment };
    },
    initiate: async (request) => {
      calls.initiate.push(request.body as InitiateBody);
      return { status: 200, body: await stand.initiate(request.body as InitiateBody) };
    },
    'cancel-for-session': async (request) => {
      calls.cancel.push(request.body);
      return { status: 200, body: {} };
    },
    'retrieve-internal': async (request) => {
      const body = request.body as { token?: string; checkoutSessionId?: string };
      calls.retrieve.push(body);
      const payment = body.token
        ? payments.get(body.token)
        : [...payments.values()].find((p) => p.checkoutSessionId === body.checkoutSessionId);
      if (!payment) throw appError('resource_not_found', 'No such payment.');
      return { status: 200, body: payment };
    },
  };
  const servePayments = () =>
    serveOperations({
      nc,
      naming: system.naming,
      service: 'payments',
      version: '0.0.1',
      log,
      operations: paymentsOps,
    });
  let paymentsStandIn = options.paymentsAway ? null : await servePayments();
  const gatewayOps: Record<string, Operation> = {
    'projects.get': async (request) => {
      const { projectId } = request.body as { projectId: string };
      return { status: 200, body: { ...PROJECT, id: projectId } };
    },
  };
  const gatewayStandIn = await serveOperations({
    nc,
    naming: system.naming,
    service: 'gateway',
    version: '0.0.1',
    log,
    operations: gatewayOps,
  });
  const client = createServiceClient({ nc, naming: system.naming, caller: 'test', defaultTimeoutMs: 5000 });
  const publish = createEventPublisher(nc, system.naming);

  async function call(
    operation: string,
    request: {
      params?: Record<string, string>;
      query?: Record<string, string>;
      body?: unknown;
      headers?: Record<string, string>;
    },
    actor: Actor = PUBLIC,
  ): Promise<ServiceReply> {
    return client.call('links-checkout', operation, request, { actor });
  }

  return {
    system,
    payments,
    calls,
    stand,
    call,
    /** The reply body of a successful call, typed for the test. */
    async ok<T = Record<string, unknown>>(
      operation: string,
      request: Parameters<typeof call>[1],
      actor?: Actor,
      status?: number,
    ): Promise<T> {
      const reply = await call(operation, request, actor);
      if (status !== undefined) expect(reply.status).toBe(status);
      return reply.body as T;
    },
    /** Asserts the call fails with this code (and status), returning the error for more checks. */
    async fails(
      operation: string,
      request: Parameters<typeof call>[1],
      code: string,
      status: number,
      actor?: Actor,
    ) {
      const error = await call(operation, request, actor).then(
        (reply) => {
          throw new Error(`expected ${code}, got ${reply.status} ${JSON.stringify(reply.body)}`);
        },
        (caught: unknown) => caught,
      );
      if (!isAppError(error)) throw error;
      expect({ code: error.code, status: error.status }).toEqual({ code, status });
      return error;
    },
    /** Publishes a payment event as payments would, returning its id (to replay it). */
    async paymentEvent(type: string, payment: PaymentSnapshot, id = newEventId()): Promise<string> {
      await publish({
        id,
        type,
        occurredAt: new Date().toISOString(),
        projectId: payment.projectId,
        livemode: payment.livemode,
        data: { payment },
      });
      return id;
    },
    async paymentsUp() {
      paymentsStandIn ??= await servePayments();
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
      service = await startService(linksCheckoutService, env);
    },
    async stop() {
      await Promise.all([paymentsStandIn?.stop(), gatewayStandIn.stop()]);
      await service.stop();
      await nc.close();
      await system.cleanup();
    },
  };
}
export type Harness = Awaited<ReturnType<typeof startHarness>>;

export function snapshot(overrides: Partial<PaymentSnapshot> = {}): PaymentSnapshot {
  return samplePaymentSnapshot({ projectId: PROJECT.id, ...overrides });
}
