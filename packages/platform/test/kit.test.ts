import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { z } from 'zod';
import { defineEvent, eventSubject, eventsOf } from '@mmp/protocol';
import { startService } from '../src/service.js';
import { operation } from '../src/rpc.js';
import {
  captureLogs,
  consumed,
  createTestBus,
  createTestSystem,
  eventually,
  metricSample,
  TEST_NATS_URL,
} from '../src/testing/index.js';
import { helloOperation, testService } from './test-contracts.js';

/**
 * The kit's promises to a service: events reach a handler only as their contract says,
 * malformed or too new ones are never acknowledged in silence, and what setup declared
 * stops in the reverse order it started.
 */

const system = createTestSystem('kit');
let nc: NatsConnection;
beforeAll(async () => {
  nc = await connect({ servers: TEST_NATS_URL });
});
afterAll(async () => {
  await nc.close();
  await system.cleanup();
});

const widgetMade = defineEvent({
  type: 'widget.made',
  version: 2,
  data: z.object({ size: z.number().int() }),
  producer: 'gateway',
  consumers: ['certification-runner'],
  summary: 'A widget was made',
});
const elsewhere = eventsOf('gateway')({
  type: 'widget.sold',
  data: z.object({}),
  consumers: ['customers'],
  summary: 'Not for the certification runner',
});

/** The files under `dir` this process holds open (Linux: /proc/self/fd). */
function filesHeldUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((file) => file.startsWith(dir));
}

async function publishRaw(body: unknown, id: string) {
  await jetstream(nc).publish(system.naming.subject(eventSubject('widget.made')), JSON.stringify(body), {
    msgID: id,
  });
}

describe('consumers by contract', () => {
  it('hands over parsed data, and drops an event that breaks its contract with a log line and a metric', async () => {
    const seen: number[] = [];
    const logs = captureLogs();
    const definition = testService(async (kit) => {
      kit.consume({
        durable: 'kit-widgets',
        events: [widgetMade],
        handle: async (event) => {
          seen.push(event.data.size);
        },
      });
    });
    const running = await startService(
      definition,
      { ...system.env, LOG_LEVEL: 'info' },
      { logDestination: logs.stream },
    );
    try {
      const at = new Date().toISOString();
      await publishRaw(
        { id: 'evt_kitgood00001', type: 'widget.made', version: 2, occurredAt: at, data: { size: 3 } },
        'g1',
      );
      await publishRaw(
        { id: 'evt_kitbad000001', type: 'widget.made', version: 2, occurredAt: at, data: { size: 'big' } },
        'b1',
      );
      await publishRaw({ not: 'an event' }, 'b2');
      await publishRaw(
        { id: 'evt_kitnew000001', type: 'widget.made', version: 3, occurredAt: at, data: { size: 9 } },
        'n1',
      );
      await publishRaw(
        { id: 'evt_kitgood00002', type: 'widget.made', occurredAt: at, data: { size: 4 } },
        'g2',
      );
      const metrics = await eventually(async () => {
        const text = await (await fetch(`http://127.0.0.1:${running.opsPort}/metrics`)).text();
        return (
          metricSample(text, 'mmp_events_handled_total', { outcome: 'ack' }) === 2 &&
          metricSample(text, 'mmp_events_handled_total', { outcome: 'dropped' }) === 2 &&
          metricSample(text, 'mmp_events_handled_total', { outcome: 'too_new' }) >= 1 &&
          text
        );
      });
      expect(seen).toEqual([3, 4]);
      expect(metrics).toMatch(/mmp_events_handled_total\{[^}]*outcome="dropped"[^}]*\} 2/);
      expect(logs.text()).toContain('dropping an event that breaks its contract');
      expect(logs.text()).toContain('event of a version this service cannot read yet');
    } finally {
      await running.stop();
    }
  });

  it('never reads, logs or drops the events of others, wherever the server delivers them', async () => {
    // Two aggregates: a server before 2.10 takes one filter subject, so this consumer gets
    // every event of the stream and must pass over those of others unread.
    const gadgetMade = defineEvent({
      type: 'gadget.made',
      version: 1,
      data: z.object({ size: z.number().int() }),
      producer: 'gateway',
      consumers: ['certification-runner'],
      summary: 'A gadget was made',
    });
    const seen: string[] = [];
    const logs = captureLogs();
    const definition = testService(async (kit) => {
      kit.consume({
        durable: 'kit-two-aggregates',
        events: [widgetMade, gadgetMade],
        deliverAll: false,
        handle: async (event) => void seen.push(`${event.type} ${event.data.size}`),
      });
    });
    const running = await startService(
      definition,
      { ...system.env, LOG_LEVEL: 'info' },
      { logDestination: logs.stream },
    );
    try {
      const js = jetstream(nc);
      const at = new Date().toISOString();
      const publish = (type: string, body: unknown, id: string) =>
        js.publish(system.naming.subject(eventSubject(type)), JSON.stringify(body), { msgID: id });
      await js.publish(system.naming.subject(eventSubject('widget.sold')), 'not json at all', {
        msgID: 'others-1',
      });
      await publish(
        'widget.sold',
        { id: 'evt_kitsold00001', type: 'widget.sold', occurredAt: at, data: {} },
        'others-2',
      );
      await publish(
        'widget.made',
        { id: 'evt_kitmade00001', type: 'widget.made', version: 2, occurredAt: at, data: { size: 5 } },
        'others-3',
      );
      await publish(
        'gadget.made',
        { id: 'evt_kitgadg00001', type: 'gadget.made', occurredAt: at, data: { size: 6 } },
        'others-4',
      );
      await consumed(nc, system.naming, 'kit-two-aggregates');
      expect(seen.sort()).toEqual(['gadget.made 6', 'widget.made 5']);
      const text = await (await fetch(`http://127.0.0.1:${running.opsPort}/metrics`)).text();
      expect(metricSample(text, 'mmp_events_handled_total', { outcome: 'ack' })).toBe(2);
      expect(text).not.toMatch(/outcome="dropped"/);
      expect(logs.text()).not.toContain('breaks its contract');
    } finally {
      await running.stop();
    }
  });

  it("handles an event once with dedupe, though it comes again past the stream's duplicate window", async () => {
    const seen: string[] = [];
    const definition = testService(async (kit) => {
      kit.consume({
        durable: 'kit-dedupe',
        events: [widgetMade],
        dedupe: true,
        deliverAll: false,
        handle: async (event) => void seen.push(event.id),
      });
    });
    const running = await startService(definition, system.env);
    try {
      const event = {
        id: 'evt_kitonce00001',
        type: 'widget.made',
        version: 2,
        occurredAt: new Date().toISOString(),
        data: { size: 1 },
      };
      // A relay re-publishing after the duplicate window: a new message id, the same event id.
      await publishRaw(event, 'once-1');
      await publishRaw(event, 'once-2');
      await publishRaw({ ...event, id: 'evt_kitonce00002' }, 'once-3');
      await eventually(async () => seen.includes('evt_kitonce00002'));
      expect(seen).toEqual(['evt_kitonce00001', 'evt_kitonce00002']);
    } finally {
      await running.stop();
    }
  });

  it('refuses, at start, to consume an event whose contract does not list the service', async () => {
    const definition = testService(async (kit) => {
      kit.consume({ durable: 'kit-wrong', events: [elsewhere], handle: async () => undefined });
    });
    await expect(startService(definition, system.env)).rejects.toThrow(/not a consumer of widget\.sold/);
  });

  it('refuses to publish an event the service does not produce, leaving nothing open', async () => {
    const definition = testService(async () => {}, [widgetMade]);
    await expect(startService(definition, system.env)).rejects.toThrow(/cannot publish widget\.made/);
    // Its store was never opened, or was closed: no file of the data folder is held.
    if (existsSync('/proc/self/fd')) expect(filesHeldUnder(system.dataDir)).toEqual([]);
  });
});

describe('lifecycle', () => {
  it('starts background work, consumers, then operations, and stops them in the reverse order', async () => {
    const order: string[] = [];
    const definition = testService(async (kit) => {
      kit.serve(
        operation(helloOperation, async (name) => {
          order.push('served');
          return { hello: name };
        }),
      );
      kit.onStop(async () => void order.push('resource released'));
      kit.loop({
        name: 'kit_loop',
        intervalMs: 60_000,
        pass: async (signal) => {
          order.push('loop ran');
          await new Promise((resolve) => signal.addEventListener('abort', resolve));
          order.push('loop stopped');
        },
      });
      kit.consume({
        durable: 'kit-lifecycle',
        events: [widgetMade],
        handle: async () => undefined,
      });
    });
    const running = await startService(definition, system.env);
    const bus = createTestBus(nc, system.naming);
    expect(await bus.request(helloOperation, 'you')).toEqual({ hello: 'you' });
    await running.stop();
    await expect(bus.request(helloOperation, 'again', { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    expect(order).toEqual(['loop ran', 'served', 'loop stopped', 'resource released']);
  });

  it('stops what already started when a later part cannot start', async () => {
    let released = false;
    const definition = testService(async (kit) => {
      kit.onStop(async () => void (released = true));
      kit.consume({ durable: 'kit-broken', events: [elsewhere], handle: async () => undefined });
    });
    await expect(startService(definition, system.env)).rejects.toThrow();
    expect(released).toBe(true);
  });
});
