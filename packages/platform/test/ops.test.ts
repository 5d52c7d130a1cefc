import { afterAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM } from '@mmp/protocol';
import { z } from 'zod';
import { defineOperation, eventsOf, pingOperation } from '@mmp/protocol';
import { createEventPublisher } from '../src/events.js';
import { operation, type BusClient } from '../src/rpc.js';
import { startService, type RunningService } from '../src/service.js';
import {
  createTestBus,
  createTestSystem,
  eventually,
  metricSample,
  startTcpProxy,
  TEST_NATS_URL,
} from '../src/testing/index.js';
import { testOperation, testService } from './test-contracts.js';

/**
 * What a platform team relies on when each service runs as its own Deployment: liveness
 * and readiness that mean different things, readiness that follows NATS, a drain on
 * SIGTERM, a bounded stop, and the metrics they alert on.
 */

const system = createTestSystem('ops');
const ping = pingOperation('certification-runner');
/** Called by this service in the metrics test; nobody serves it here. */
const gatewayProject = defineOperation({
  service: 'gateway',
  name: 'projects.get',
  actors: ['service'],
  callers: ['certification-runner'],
  request: z.object({ projectId: z.string() }),
  reply: z.object({}),
  summary: 'A gateway operation',
});
afterAll(() => system.cleanup());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Probe = { status: number; body: { status: string; checks: Record<string, string> } };
async function probe(running: RunningService, path: '/readyz' | '/healthz'): Promise<Probe> {
  const response = await fetch(`http://127.0.0.1:${running.opsPort}${path}`);
  return { status: response.status, body: (await response.json()) as Probe['body'] };
}

async function metricsOf(running: RunningService): Promise<string> {
  return (await fetch(`http://127.0.0.1:${running.opsPort}/metrics`)).text();
}

let releaseSlow: () => void = () => undefined;

const thingMade = eventsOf('certification-runner')({
  type: 'thing.made',
  data: z.object({}),
  consumers: ['certification-runner'],
  summary: 'A thing was made',
});
const operations = {
  slow: testOperation('slow', z.object({}).optional(), z.object({ finished: z.boolean() })),
  write: testOperation(
    'write',
    z.object({ id: z.string(), unpublishable: z.boolean().optional() }),
    z.object({ id: z.string() }),
  ),
  relay: testOperation('relay', z.object({}).optional(), z.object({})),
};

const definition = testService(
  async (kit) => {
    const things = kit.store.collection('things');
    const outbox = kit.outbox([things], { relayIntervalMs: 60_000 });
    let failedOnce = false;
    kit.consume({
      durable: 'ops-test',
      events: [thingMade],
      handle: async () => {
        if (!failedOnce) {
          failedOnce = true;
          throw new Error('first attempt fails');
        }
      },
    });
    kit.serve(
      operation(
        operations.slow,
        () =>
          new Promise((resolve) => {
            releaseSlow = () => resolve({ finished: true });
          }),
      ),
      operation(operations.write, async ({ id, unpublishable }) => {
        // A type this service does not produce can never be published: the relay keeps failing on it.
        const type = unpublishable ? 'thing.unknown' : 'thing.made';
        await outbox.insert(things, { _id: id }, [
          { id: `evt_${id}`, type, occurredAt: new Date().toISOString(), data: {} },
        ]);
        return { id };
      }),
      operation(operations.relay, async () => {
        await outbox.relayOnce().catch(() => undefined);
        return {};
      }),
    );
  },
  [thingMade],
);

async function withClient<T>(work: (client: BusClient) => Promise<T>) {
  const nc: NatsConnection = await connect({ servers: TEST_NATS_URL });
  try {
    return await work(createTestBus(nc, system.naming));
  } finally {
    await nc.close();
  }
}

describe('liveness and readiness', () => {
  it('reports not ready while its NATS connection is lost, alive all along, and ready again once reconnected', async () => {
    const nats = new URL(TEST_NATS_URL);
    const proxy = await startTcpProxy({ host: nats.hostname, port: Number(nats.port || 4222) });
    const running = await startService(definition, {
      ...system.env,
      NATS_URL: `nats://127.0.0.1:${proxy.port}`,
    });
    try {
      expect(await probe(running, '/readyz')).toMatchObject({
        status: 200,
        body: { status: 'ready', checks: { nats: 'ok', store: 'ok', consumers: 'ok' } },
      });
      proxy.cut();
      const lost = await eventually(async () => {
        const ready = await probe(running, '/readyz');
        return ready.status === 503 && ready;
      });
      expect(lost.body).toMatchObject({ status: 'not_ready', checks: { nats: 'failing', store: 'ok' } });
      expect(await probe(running, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect(metricSample(await metricsOf(running), 'mmp_nats_connected')).toBe(0);

      proxy.restore();
      const back = await eventually(async () => {
        const ready = await probe(running, '/readyz');
        return ready.status === 200 && ready;
      }, 15_000);
      expect(back.body).toMatchObject({ status: 'ready', checks: { nats: 'ok' } });
      expect(metricSample(await metricsOf(running), 'mmp_nats_connected')).toBe(1);
    } finally {
      await running.stop();
      await proxy.close();
    }
  }, 30_000);

  it('reports not ready when one of its consumers is gone, though NATS and the store answer', async () => {
    const running = await startService(definition, system.env);
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      expect((await probe(running, '/readyz')).status).toBe(200);
      const jsm = await jetstreamManager(nc);
      await jsm.consumers.delete(system.naming.stream(EVENTS_STREAM), system.naming.consumer('ops-test'));
      const gone = await eventually(async () => {
        const ready = await probe(running, '/readyz');
        return ready.status === 503 && ready;
      }, 15_000);
      expect(gone.body.checks).toMatchObject({ nats: 'ok', store: 'ok', consumers: 'failing' });
    } finally {
      await nc.close();
      await running.stop();
    }
  }, 30_000);
});

describe('graceful shutdown', () => {
  it('turns not ready at once, keeps serving through the delay, finishes the request in flight, then stops', async () => {
    const running = await startService(definition, { ...system.env, SHUTDOWN_DELAY_MS: '400' });
    await withClient(async (client) => {
      const inFlight = client.request(operations.slow, {});
      await sleep(50);
      const shutdown = running.shutdown();
      await sleep(50);

      expect(await probe(running, '/readyz')).toMatchObject({ status: 503, body: { status: 'draining' } });
      expect((await probe(running, '/healthz')).status).toBe(200);
      // The ingress may still send a request or two meanwhile: they are answered.
      expect(await client.request(ping, {})).toMatchObject({ status: 'ok' });

      await sleep(500);
      releaseSlow();
      expect(await inFlight).toEqual({ finished: true });
      expect(await shutdown).toBe(true);
      await expect(client.request(ping, {}, { timeoutMs: 300 })).rejects.toMatchObject({
        code: 'service_unavailable',
      });
    });
  });

  it('gives in-flight work SHUTDOWN_TIMEOUT_MS and says so when it was not enough', async () => {
    const running = await startService(definition, { ...system.env, SHUTDOWN_TIMEOUT_MS: '300' });
    await withClient(async (client) => {
      const inFlight = client.request(operations.slow, {}).catch(() => undefined);
      await sleep(50);
      const started = Date.now();
      expect(await running.shutdown()).toBe(false);
      expect(Date.now() - started).toBeLessThan(2000);
      releaseSlow();
      await inFlight;
      await running.stop();
    });
  });
});

describe('metrics', () => {
  it('counts operations and calls, consumer outcomes and redeliveries, the outbox backlog, relay failures and loop passes', async () => {
    const running = await startService(definition, system.env);
    const publish = createEventPublisher(running.context.nc, system.naming, {
      service: 'certification-runner',
      types: new Set(['thing.made']),
    });
    try {
      await withClient(async (client) => {
        await client.request(operations.write, { id: 'published' });
        await client.request(operations.write, { id: 'stuck', unpublishable: true });
        await client.request(operations.relay, {});
      });
      // A call of the service's own client, to a service nobody runs here.
      await running.context.bus
        .request(gatewayProject, { projectId: 'p' }, { timeoutMs: 200 })
        .catch(() => undefined);
      await publish({ id: 'evt_direct', type: 'thing.made', occurredAt: new Date().toISOString(), data: {} });

      const text = await eventually(async () => {
        const current = await metricsOf(running);
        return metricSample(current, 'mmp_events_handled_total', { outcome: 'ack' }) >= 2 && current;
      });
      expect(metricSample(text, 'mmp_operations_total', { operation: 'write', status_class: '2xx' })).toBe(2);
      expect(text).toContain('mmp_operation_duration_seconds_bucket{');
      expect(text).toMatch(/mmp_operations_total\{[^}]*service="certification-runner"/);
      expect(metricSample(text, 'mmp_calls_total', { target: 'gateway', outcome: 'unavailable' })).toBe(1);
      expect(
        metricSample(text, 'mmp_events_handled_total', { consumer: 'ops-test', outcome: 'failed' }),
      ).toBe(1);
      expect(
        metricSample(text, 'mmp_event_redeliveries_total', { consumer: 'ops-test' }),
      ).toBeGreaterThanOrEqual(1);
      expect(metricSample(text, 'mmp_outbox_unpublished_events', { collection: 'things' })).toBe(1);
      expect(metricSample(text, 'mmp_outbox_relay_failures_total')).toBe(1);
      expect(metricSample(text, 'mmp_loop_runs_total', { loop: 'outbox_relay', outcome: 'error' })).toBe(1);
    } finally {
      await running.stop();
    }
  });
});
