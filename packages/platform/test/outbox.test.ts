import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { z } from 'zod';
import { EVENTS_STREAM, HEADER, defineEvent, newEvent, paymentEvents } from '@mmp/protocol';
import { createTestSystem, TEST_NATS_URL, eventually, samplePaymentSnapshot } from '../src/testing/index.js';
import { openEmbeddedStore } from '../src/store/embedded.js';
import { createOutbox } from '../src/outbox.js';
import {
  consumeEvents,
  createEventPublisher,
  provisionEventsStream,
  type ReceivedEvent,
} from '../src/events.js';
import { createLogger } from '../src/logger.js';

const system = createTestSystem('outbox');
const producer = {
  service: 'payments' as const,
  types: new Set(['payment.created', 'payment.completed', 'order.created']),
};
const orderCreated = defineEvent({
  type: 'order.created',
  version: 1,
  data: z.object({ n: z.number() }),
  producer: 'payments',
  consumers: ['provider-delivery'],
  summary: 'A test order',
});
const log = createLogger({ service: 'test', level: 'silent' });
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connect({ servers: TEST_NATS_URL });
  await provisionEventsStream(nc, system.naming);
});
afterAll(async () => {
  await nc.close();
  await system.cleanup();
});

async function messagesInStream(): Promise<number> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(system.naming.stream(EVENTS_STREAM));
  return info.state.messages;
}

function runUntilWritten(dataDir: string, eventId: string): Promise<void> {
  const fixture = fileURLToPath(new URL('./outbox-crash.fixture.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', fixture, dataDir, eventId],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('written')) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error('fixture ended on its own')),
    );
  });
}

describe('outbox', () => {
  it('publishes exactly once an event whose service was killed between the write and the publish', async () => {
    const dataDir = `${system.dataDir}/killed`;
    const eventId = 'evt_killedbeforepublish1';
    await runUntilWritten(dataDir, eventId);
    expect(await messagesInStream()).toBe(0);

    // The restarted service's relay finds the unpublished event in the document.
    const store = await openEmbeddedStore({ dir: dataDir });
    const payments = store.collection('payments');
    expect(await payments.findOne({ _id: 'pay_crash' })).toMatchObject({
      status: 'PENDING',
      _outboxPending: 1,
    });
    const outbox = createOutbox({
      publish: createEventPublisher(nc, system.naming, producer),
      log,
      collections: [payments],
    });
    expect(await outbox.relayOnce()).toBe(1);
    expect(await outbox.relayOnce()).toBe(0);
    expect(await messagesInStream()).toBe(1);
    expect(await payments.findOne({ _id: 'pay_crash' })).toMatchObject({ _outboxPending: 0, _outbox: [] });
    await store.close();
  });

  it('lets the stream drop a second copy when a crash came after the publish but before the mark', async () => {
    const store = await openEmbeddedStore({ dir: `${system.dataDir}/republish` });
    const payments = store.collection('payments');
    const publish = createEventPublisher(nc, system.naming, producer);
    const before = await messagesInStream();
    const crashing = createOutbox({
      log,
      collections: [payments],
      publish: async (event) => {
        await publish(event);
        throw new Error('killed after publishing');
      },
    });
    await crashing.insert(payments, { _id: 'pay_twice', status: 'PENDING' }, [
      {
        id: 'evt_publishedthenkilled1',
        type: 'payment.created',
        occurredAt: new Date().toISOString(),
        data: {},
      },
    ]);
    const restarted = createOutbox({ publish, log, collections: [payments] });
    await restarted.relayOnce();
    expect(await messagesInStream()).toBe(before + 1);
    await store.close();
  });

  it('marks published events together and never publishes one again while its mark waits', async () => {
    const store = await openEmbeddedStore({ dir: `${system.dataDir}/marks` });
    const payments = store.collection('payments');
    const publish = createEventPublisher(nc, system.naming, producer);
    const before = await messagesInStream();
    const outbox = createOutbox({ publish, log, collections: [payments] });
    for (const n of [1, 2, 3])
      await outbox.insert(payments, { _id: `pay_mark${n}`, status: 'PENDING' }, [
        {
          id: `evt_markwaits0000${n}`,
          type: 'payment.created',
          occurredAt: new Date().toISOString(),
          data: {},
        },
      ]);
    // A relay pass at once finds nothing to publish: the three are published, their marks due.
    expect(await outbox.relayOnce()).toBe(0);
    expect(await messagesInStream()).toBe(before + 3);
    expect(await payments.count({ _outboxPending: { $gt: 0 } })).toBe(0);

    await outbox.insert(payments, { _id: 'pay_mark4', status: 'PENDING' }, [
      { id: 'evt_markwaits00004', type: 'payment.created', occurredAt: new Date().toISOString(), data: {} },
    ]);
    await outbox.close();
    expect(await payments.findOne({ _id: 'pay_mark4' })).toMatchObject({ _outboxPending: 0, _outbox: [] });
    await store.close();
  });

  it('answers before the stream holds its events, publishes each once, and lets them finish before it closes', async () => {
    const store = await openEmbeddedStore({ dir: `${system.dataDir}/background` });
    const payments = store.collection('payments');
    const stream = createEventPublisher(nc, system.naming, producer);
    const calls: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The stream answers this publisher's first publish late, as a busy stream would.
    const publish: typeof stream = async (event, requestId) => {
      calls.push(event.id);
      if (calls.length === 1) await held;
      await stream(event, requestId);
    };
    const before = await messagesInStream();
    const outbox = createOutbox({ publish, log, collections: [payments] });
    const event = {
      id: 'evt_background000001',
      type: 'payment.created',
      occurredAt: new Date().toISOString(),
      data: {},
    };
    await outbox.insert(payments, { _id: 'pay_background', status: 'PENDING' }, [event]);
    expect(calls).toEqual([event.id]);
    expect(await messagesInStream()).toBe(before);
    // A relay pass meanwhile waits for it rather than publishing it again.
    const relayed = outbox.relayOnce();
    const closed = outbox.close();
    release();
    expect(await relayed).toBe(0);
    await closed;
    expect(calls).toEqual([event.id]);
    expect(await messagesInStream()).toBe(before + 1);
    expect(await payments.findOne({ _id: 'pay_background' })).toMatchObject({
      _outboxPending: 0,
      _outbox: [],
    });
    await store.close();
  });

  it('writes nothing and publishes nothing when the compare-and-set guard fails', async () => {
    const store = await openEmbeddedStore({ dir: `${system.dataDir}/guard` });
    const payments = store.collection<{ _id: string; status: string }>('payments');
    const outbox = createOutbox({
      publish: createEventPublisher(nc, system.naming, producer),
      log,
      collections: [payments],
    });
    await outbox.insert(payments, { _id: 'pay_guard', status: 'PENDING' }, []);
    const event = (id: string) => ({
      id,
      type: 'payment.completed',
      occurredAt: new Date().toISOString(),
      data: {},
    });
    const before = await messagesInStream();
    const first = await outbox.update(
      payments,
      { _id: 'pay_guard', status: 'PENDING' },
      { $set: { status: 'COMPLETED' } },
      [event('evt_guardwins00001')],
    );
    const second = await outbox.update(
      payments,
      { _id: 'pay_guard', status: 'PENDING' },
      { $set: { status: 'FAILED' } },
      [event('evt_guardloses0001')],
    );
    expect(first).toMatchObject({ status: 'COMPLETED' });
    expect(second).toBeNull();
    expect(await messagesInStream()).toBe(before + 1);
    await store.close();
  });
});

describe('event consumers', () => {
  it('delivers each event to a durable consumer and retries a failed handler later', async () => {
    const publish = createEventPublisher(nc, system.naming, producer);
    const seen: ReceivedEvent<typeof orderCreated>[] = [];
    let failOnce = true;
    const consumer = await consumeEvents({
      nc,
      naming: system.naming,
      service: 'provider-delivery',
      durable: 'test-consumer',
      events: [orderCreated],
      log,
      handle: async (event) => {
        if (failOnce) {
          failOnce = false;
          return { retryInMs: 100 };
        }
        seen.push(event);
      },
    });
    await publish(
      {
        id: 'evt_order00000001',
        type: 'order.created',
        occurredAt: new Date().toISOString(),
        data: { n: 1 },
      },
      'req_1',
    );
    await eventually(async () => seen.length === 1);
    expect(seen[0]).toMatchObject({
      id: 'evt_order00000001',
      requestId: 'req_1',
      redeliveries: 1,
      data: { n: 1 },
    });
    await consumer.stop();
  });

  it('acks unread the events whose headers say they are not for it, and reads those without the header', async () => {
    const publish = createEventPublisher(nc, system.naming, producer);
    const created = (id: string, customerId: string | null) =>
      newEvent(
        paymentEvents.created,
        { payment: samplePaymentSnapshot({ id, customerId }) },
        { occurredAt: new Date().toISOString(), id: `evt_${id}` },
      );
    const handled: string[] = [];
    const consumer = await consumeEvents({
      nc,
      naming: system.naming,
      service: 'customers',
      durable: 'test-pass-over',
      events: [paymentEvents.created],
      deliverAll: false,
      log,
      passOver: { [HEADER.hasCustomer]: 'false' },
      handle: async (event) => void handled.push(event.data.payment.id),
    });
    await publish(created('pay_nocustomer0001', null));
    await publish(created('pay_customer000001', 'cus_1'));
    // As a producer published it before its contract carried the header: read, not passed over.
    const unmarked = created('pay_unmarked000001', null);
    await jetstream(nc).publish(system.naming.subject('evt.payment.created'), JSON.stringify(unmarked), {
      msgID: unmarked.id,
    });
    await eventually(async () => handled.length === 2);
    const jsm = await jetstreamManager(nc);
    const consumerName = system.naming.consumer('test-pass-over');
    const info = () => jsm.consumers.info(system.naming.stream(EVENTS_STREAM), consumerName);
    await eventually(async () => (await info()).num_ack_pending === 0);
    expect(handled).toEqual(['pay_customer000001', 'pay_unmarked000001']);
    const { delivered, num_pending: pending, num_ack_pending: unacked } = await info();
    expect({ delivered: delivered.consumer_seq, pending, unacked }).toEqual({
      delivered: 3,
      pending: 0,
      unacked: 0,
    });
    await consumer.stop();
  });

  it('publishes each payment event with whether its payment names a customer', async () => {
    const publish = createEventPublisher(nc, system.naming, producer);
    const headers: Record<string, string | undefined> = {};
    nc.subscribe(system.naming.subject('evt.payment.completed'), {
      max: 2,
      callback: (_error, msg) => {
        const { id } = msg.json<{ data: { payment: { id: string } } }>().data.payment;
        headers[id] = msg.headers?.get(HEADER.hasCustomer);
      },
    });
    await nc.flush();
    for (const [id, customerId] of [
      ['pay_withcustomer01', 'cus_9'],
      ['pay_nocustomer0002', null],
    ] as const)
      await publish(
        newEvent(
          paymentEvents.completed,
          { payment: samplePaymentSnapshot({ id, customerId }) },
          { occurredAt: new Date().toISOString() },
        ),
      );
    await eventually(async () => Object.keys(headers).length === 2);
    expect(headers).toEqual({ pay_withcustomer01: 'true', pay_nocustomer0002: 'false' });
  });

  it("handles a lane's events in stream order while other lanes go on beside a slow one", async () => {
    const publish = createEventPublisher(nc, system.naming, producer);
    const steps: string[] = [];
    let releaseFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const consumer = await consumeEvents({
      nc,
      naming: system.naming,
      service: 'provider-delivery',
      durable: 'test-lanes',
      events: [orderCreated],
      log,
      concurrency: 4,
      // Even numbers share a lane, odd ones another.
      laneOf: (event) => String(event.data.n % 2),
      handle: async (event) => {
        steps.push(`start ${event.data.n}`);
        if (event.data.n === 2) await firstHeld;
        steps.push(`end ${event.data.n}`);
      },
    });
    for (const n of [2, 3, 4, 5])
      await publish({
        id: `evt_lane0000000${n}`,
        type: 'order.created',
        occurredAt: new Date().toISOString(),
        data: { n },
      });
    // The odd lane finishes while 2 holds its lane: 4 waits for 2, not for the others.
    await eventually(async () => steps.includes('end 5'));
    expect(steps).not.toContain('start 4');
    releaseFirst();
    await eventually(async () => steps.includes('end 4'));
    expect(steps.indexOf('start 4')).toBeGreaterThan(steps.indexOf('end 2'));
    expect(steps.indexOf('end 3')).toBeLessThan(steps.indexOf('start 5'));
    await consumer.stop();
  });

  it('keeps other lanes going while a burst waits behind one slow lane', async () => {
    const publish = createEventPublisher(nc, system.naming, producer);
    const ended: number[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const consumer = await consumeEvents({
      nc,
      naming: system.naming,
      service: 'provider-delivery',
      durable: 'test-lane-burst',
      events: [orderCreated],
      // Only the events published below, not those of the tests before.
      deliverAll: false,
      log,
      concurrency: 2,
      // 1 to 5 share a slow lane; 6 has a lane of its own.
      laneOf: (event) => (event.data.n === 6 ? 'quick' : 'slow'),
      handle: async (event) => {
        if (event.data.n === 1) await held;
        ended.push(event.data.n);
      },
    });
    for (const n of [1, 2, 3, 4, 5, 6])
      await publish({
        id: `evt_burst000000${n}`,
        type: 'order.created',
        occurredAt: new Date().toISOString(),
        data: { n },
      });
    // Four events wait behind 1, yet 6 is handled: waiting takes no slot.
    await eventually(async () => ended.includes(6));
    expect(ended).toEqual([6]);
    release();
    await eventually(async () => ended.length === 6);
    expect(ended).toEqual([6, 1, 2, 3, 4, 5]);
    await consumer.stop();
  });
});
