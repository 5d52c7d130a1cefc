import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { createEventPublisher, startService, type RunningService } from '@mmp/platform';
import {
  createTestBus,
  createTestSystem,
  consumed,
  TEST_NATS_URL,
  type TestSystem,
} from '@mmp/platform/testing';
import { PAYMENT_EVENTS, customersApi, eventSubject, type Actor, type PendingEvent } from '@mmp/protocol';
import { customersService, PROJECTION_CONSUMER } from '../src/service.js';

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** The customers service on a real NATS server and embedded store, plus a payments stand-in. */
export async function startHarness(label: string) {
  const system: TestSystem = createTestSystem(label);
  const service: RunningService = await startService(customersService, system.env);
  const nc: NatsConnection = await connect({ servers: TEST_NATS_URL });
  const publishEvent = createEventPublisher(nc, system.naming, {
    service: 'payments',
    types: new Set(PAYMENT_EVENTS.map((event) => event.type)),
  });
  const client = createTestBus(nc, system.naming);
  const js = jetstream(nc);

  return {
    system,
    service,
    /** Publishes exactly as payments' outbox does (Nats-Msg-Id = event id). */
    async publish(events: PendingEvent[]) {
      for (const event of events) await publishEvent(event);
    },
    /**
     * Publishes the same events again under new message ids: what a relay re-publishing
     * after the stream's duplicate window looks like to a consumer.
     */
    async republish(events: PendingEvent[]) {
      for (const event of events) {
        await js.publish(system.naming.subject(eventSubject(event.type)), JSON.stringify(event), {
          msgID: `${event.id}-again-${Math.random()}`,
        });
      }
    },
    /** Resolves once the projection consumer has processed and acked everything published. */
    settled: () => consumed(nc, system.naming, PROJECTION_CONSUMER),
    async call(
      operation: keyof typeof customersApi,
      actor: Actor,
      request: { params?: Record<string, string>; query?: Record<string, string> } = {},
    ) {
      const reply = await client.request(customersApi[operation], request, { actor, timeoutMs: 10_000 });
      // Replies are checked by the assertions (and protocol schemas) in the tests themselves.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return reply.body as any;
    },
    async stop() {
      await service.stop();
      await nc.close();
      await system.cleanup();
    },
  };
}

export function merchant(projectId: string, livemode = false): Actor {
  return { kind: 'merchant', projectId, livemode, scopes: ['customers:read'], keyId: 'key_test' };
}
