import { randomUUID } from 'node:crypto';
import {
  connectNats,
  consumeEvents,
  createEventPublisher,
  createLogger,
  createServiceClient,
  serveOperations,
  startService,
  type NatsConnection,
  type Operation,
  type ReceivedEvent,
  type RunningService,
} from '@mmp/platform';
import { createTestSystem, eventually } from '@mmp/platform/testing';
import {
  eventSubject,
  isAppError,
  newEventId,
  type AppError,
  type MerchantActor,
  type ServiceReply,
} from '@mmp/protocol';
import { createPaymentsService, type Env } from '../src/service.js';
import type { z } from 'zod';

export { eventually };

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

export const SERVICE_ACTOR = { kind: 'service', service: 'links-checkout' } as const;

/**
 * One payments service on its own NATS prefix and data folder, with tiny responders for the
 * peers it calls (links-checkout, gateway, provider-router), an event publisher and an
 * observer of everything the service publishes.
 */
export async function startPaymentsHarness(extraEnv: Record<string, string> = {}) {
  const system = createTestSystem('pay');
  const log = createLogger({ service: 'payments-test', level: 'silent' });
  const nc: NatsConnection = await connectNats({
    url: system.env.NATS_URL as string,
    name: 'payments-test',
    log,
  });
  const env = {
    ...system.env,
    EXPIRY_INTERVAL_MS: '100',
    WEBHOOK_RETRY_SCHEDULE_MS: '100,200',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    REQUEST_TIMEOUT_MS: '3000',
    ...extraEnv,
  };
  // The service's clock runs with real time, shifted by what a test advanced it.
  let clockOffsetMs = 0;
  const paymentsService = createPaymentsService({ now: () => new Date(Date.now() + clockOffsetMs) });
  let service: RunningService<z.infer<Env>> = await startService(paymentsService, env);

  const sessions: Record<string, unknown>[] = [];
  const orderStatus = new Map<string, { order: unknown; settlement: unknown }>();
  const peers: Record<string, Record<string, Operation>> = {
    'links-checkout': {
      'sessions.create-for-payment': async (request) => {
        const body = request.body as Record<string, unknown>;
        sessions.push(body);
        const id = `cs_${String(body.paymentId).replace(/-/g, '')}`;
        return { status: 201, body: { id, url: `http://localhost:3000/checkout/${id}` } };
      },
    },
    gateway: {
      'projects.get': async (request) => {
        const { projectId } = request.body as { projectId: string };
        return {
          status: 200,
          body: { id: projectId, name: 'Test shop', displayName: 'Test shop', logoUrl: null },
        };
      },
    },
  };
  const handles = new Map<string, Awaited<ReturnType<typeof serveOperations>>>();
  async function servePeer(name: string) {
    const operations = peers[name] ?? {};
    handles.set(
      name,
      await serveOperations({
        nc,
        naming: system.naming,
        service: name as 'gateway',
        version: '0.0.1',
        log,
        operations,
      }),
    );
  }
  for (const name of Object.keys(peers)) await servePeer(name);
  let router: Awaited<ReturnType<typeof serveOperations>> | undefined;
  async function serveRouter() {
    router = await serveOperations({
      nc,
      naming: system.naming,
      service: 'provider-router',
      version: '0.0.1',
      log,
      operations: {
        'orders.status': async (request) => {
          const { paymentId } = request.body as { paymentId: string };
          return { status: 200, body: orderStatus.get(paymentId) ?? { order: null, settlement: null } };
        },
      },
    });
  }

  const client = createServiceClient({ nc, naming: system.naming, caller: 'test', defaultTimeoutMs: 5000 });
  const publisher = createEventPublisher(nc, system.naming);
  const events: ReceivedEvent[] = [];
  const observer = await consumeEvents({
    nc,
    naming: system.naming,
    durable: `observer-${randomUUID().slice(0, 8)}`,
    types: ['payment.*'],
    log,
    handle: async (event) => void events.push(event),
  });

  async function call(
    operation: string,
    request: Parameters<typeof client.call>[2],
    actor: unknown,
    timeoutMs?: number,
  ): Promise<ServiceReply> {
    return client.call('payments', operation, request, {
      actor: actor as MerchantActor,
      ...(timeoutMs ? { timeoutMs } : {}),
    });
  }

  return {
    system,
    env,
    nc,
    sessions,
    orderStatus,
    events,
    get service() {
      return service;
    },
    call,
    /** The AppError an operation fails with; fails the test if it succeeds. */
    async callError(
      operation: string,
      request: Parameters<typeof client.call>[2],
      actor: unknown,
    ): Promise<AppError> {
      try {
        const reply = await call(operation, request, actor);
        throw new Error(`expected ${operation} to fail, got ${reply.status} ${JSON.stringify(reply.body)}`);
      } catch (error) {
        if (isAppError(error)) return error;
        throw error;
      }
    },
    /** Publishes an event as its producer would; returns its id. */
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
      return events.filter(
        (event) =>
          (event.data as { payment: { id: string } }).payment.id === paymentId &&
          (!type || event.type === type),
      );
    },
    serveRouter,
    servePeer,
    /** Moves the service's clock by `ms` (negative moves it back). */
    advanceClock(ms: number) {
      clockOffsetMs += ms;
    },
    async stopPeer(name: 'links-checkout' | 'gateway') {
      await handles.get(name)?.stop();
      handles.delete(name);
    },
    async stopRouter() {
      await router?.stop();
      router = undefined;
    },
    async restart(overrides: Record<string, string> = {}) {
      await service.stop();
      service = await startService(paymentsService, { ...env, ...overrides });
    },
    async close() {
      await observer.stop();
      await service.stop();
      for (const handle of handles.values()) await handle.stop();
      await router?.stop();
      await nc.drain();
      await system.cleanup();
    },
  };
}
export type PaymentsHarness = Awaited<ReturnType<typeof startPaymentsHarness>>;

export async function createPayment(
  harness: PaymentsHarness,
  actor: MerchantActor,
  body: Record<string, unknown> = {},
) {
  const reply = await harness.call('create', { body: { amount: 5000, ...body } }, actor);
  return reply.body as { id: string; token: string; status: string; paymentUrl: string; createdAt: string };
}
