import { afterAll } from 'vitest';
import {
  consumeEvents,
  createEventPublisher,
  createServiceClient,
  serveOperations,
  startService,
  type Operation,
  type ReceivedEvent,
} from '@mmp/platform';
import { createTestSystem, eventually, samplePaymentSnapshot } from '@mmp/platform/testing';
import { hexHmac, newEventId, type Actor, type PaymentSnapshot } from '@mmp/protocol';
import { providerRouterService } from '../src/service.js';

export const ADMIN: Actor = { kind: 'admin' };
export const SERVICE: Actor = { kind: 'service', service: 'test' };
export const providerActor = (providerId: string): Actor => ({ kind: 'provider', providerId });

/**
 * One provider-router on its own NATS prefix, a client calling it as any actor, an event
 * publisher standing in for payments and provider-delivery, and a recorder of what it emits.
 */
export async function startRouter(extraEnv: Record<string, string> = {}) {
  const system = createTestSystem('prouter');
  const running = await startService(providerRouterService, {
    ...system.env,
    ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true',
    ...extraEnv,
  });
  const { nc, naming, log } = running.context;
  const client = createServiceClient({ nc, naming, caller: 'test', defaultTimeoutMs: 10_000 });
  const publish = createEventPublisher(nc, naming);
  const seen: ReceivedEvent[] = [];
  const observer = await consumeEvents({
    nc,
    naming,
    durable: 'observer',
    types: ['order.created', 'execution.*', 'settlement.received', 'routing.decided'],
    log,
    handle: async (event) => {
      seen.push(event);
    },
  });
  let probeOperations: Record<string, Operation> = {};
  const probeStandIn = await serveOperations({
    nc,
    naming,
    service: 'provider-delivery',
    version: '0.0.1',
    log,
    operations: { probe: (request, context) => probeOperations.probe!(request, context) },
  });

  const harness = {
    system,
    running,
    client,
    seen,
    /** What the stand-in provider-delivery answers to svc.provider-delivery.probe. */
    onProbe(probe: Operation) {
      probeOperations = { probe };
    },
    async call(operation: string, request: Parameters<typeof client.call>[2], actor: Actor) {
      return client.call('provider-router', operation, request, { actor });
    },
    /** Resolves to the AppError an operation throws. */
    async failure(operation: string, request: Parameters<typeof client.call>[2], actor: Actor) {
      try {
        await client.call('provider-router', operation, request, { actor });
      } catch (error) {
        return error as {
          code: string;
          status: number;
          message: string;
          fields?: { field: string; message: string }[];
        };
      }
      throw new Error(`${operation} did not fail`);
    },
    async createProvider(name = 'Acme Mobile') {
      const reply = await harness.call('providers.create', { body: { name } }, ADMIN);
      return reply.body as { id: string; name: string; signingSecret: string };
    },
    async createRail(providerId: string, body: Record<string, unknown>) {
      const reply = await harness.call('rails.create', { body }, providerActor(providerId));
      return reply.body as { id: string; status: string; secret?: string; [key: string]: unknown };
    },
    /** A webhook rail made ACTIVE through a passing probe. */
    async activeRail(providerId: string, body: Record<string, unknown> = {}) {
      harness.onProbe(async () => ({
        status: 200,
        body: { ok: true, httpStatus: 200, reason: null, latencyMs: 3 },
      }));
      const rail = await harness.createRail(providerId, { ...webhookRail(), ...body });
      await harness.call('rails.test', { params: { railId: rail.id } }, providerActor(providerId));
      await harness.call('rails.activate', { params: { railId: rail.id } }, providerActor(providerId));
      return rail;
    },
    async initiate(
      payment: PaymentSnapshot,
      execution = { network: 'ORANGE_MONEY', phone: '+237690000001', country: 'CM' },
    ) {
      const id = newEventId();
      await publish({
        id,
        type: 'payment.initiated',
        occurredAt: new Date().toISOString(),
        projectId: payment.projectId,
        livemode: payment.livemode,
        data: { payment, execution },
      });
      return id;
    },
    async deliver(
      type: string,
      data: {
        orderKey: string;
        paymentId: string;
        railId: string;
        classification: string;
        reason?: string | null;
      },
    ) {
      await publish({
        id: newEventId(),
        type,
        occurredAt: new Date().toISOString(),
        data: { reason: null, attempts: 1, ...data },
      });
    },
    events(type: string, paymentId: string) {
      return seen.filter(
        (event) => event.type === type && (event.data as { paymentId: string }).paymentId === paymentId,
      );
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
      return harness.call(
        'settlements.ingest',
        {
          params: { providerId },
          rawBody,
          body,
          headers: { 'x-service-signature': options.signature ?? hexHmac(secret, rawBody) },
        },
        { kind: 'public' },
      );
    },
    async settleFailure(
      providerId: string,
      secret: string,
      body: unknown,
      options: { raw?: string; signature?: string } = {},
    ) {
      try {
        await harness.settle(providerId, secret, body, options);
      } catch (error) {
        return error as {
          code: string;
          status: number;
          message: string;
          fields?: { field: string; message: string }[];
        };
      }
      throw new Error('settlement was accepted');
    },
  };

  afterAll(async () => {
    await probeStandIn.stop().catch(() => undefined);
    await observer.stop();
    await running.stop();
    await system.cleanup();
  });
  return harness;
}
export type Harness = Awaited<ReturnType<typeof startRouter>>;

export function webhookRail(): Record<string, unknown> {
  return {
    transport: 'webhook',
    endpoint: 'https://provider.example/mmp',
    networks: ['ORANGE_MONEY', 'MTN_MOMO'],
    countries: ['CM'],
    currencies: ['XAF'],
    environment: 'sandbox',
    priority: 10,
  };
}

export function paymentSnapshot(overrides: Partial<PaymentSnapshot> = {}): PaymentSnapshot {
  return samplePaymentSnapshot({
    projectId: 'proj_1',
    paymentMethod: 'ORANGE_MONEY',
    payerPhone: '+237690000001',
    ...overrides,
  });
}
