import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM, EVENTS_SUBJECTS } from '@mmp/protocol';
import { durableLayout, provisionDurables, serverVersion, type Durable } from './event-durables.js';
import { provisionEventsStream } from './events.js';
import { TEST_NATS_URL, createTestSystem } from './testing/index.js';

const SUBJECTS = ['p.evt.payment.initiated', 'p.evt.delivery.accepted', 'p.evt.delivery.failed'];

describe('durableLayout', () => {
  const PER_SUBJECT = [
    { name: 'p_router-on-payment-initiated', filter: 'p.evt.payment.initiated' },
    { name: 'p_router-on-delivery-accepted', filter: 'p.evt.delivery.accepted' },
    { name: 'p_router-on-delivery-failed', filter: 'p.evt.delivery.failed' },
  ];

  it('is one durable on exactly its subjects where the server filters on several (2.10 and later)', () => {
    expect(durableLayout('2.10.4', 'p_router', SUBJECTS)).toEqual({
      wanted: [{ name: 'p_router', filter: SUBJECTS }],
      others: [
        { name: 'p_router-on-payment', filter: 'p.evt.payment.initiated' },
        { name: 'p_router-on-delivery', filter: 'p.evt.delivery.*' },
        ...PER_SUBJECT,
      ],
    });
    expect(durableLayout('3.0.0', 'p_router', SUBJECTS, { anyOrder: true }).wanted).toEqual([
      { name: 'p_router', filter: SUBJECTS },
    ]);
    expect(durableLayout('2.10.0', 'p_links', SUBJECTS.slice(1)).wanted).toEqual([
      { name: 'p_links', filter: SUBJECTS.slice(1) },
    ]);
  });

  it('is a durable per aggregate before 2.10, so no consumer takes every event of the system', () => {
    expect(durableLayout('2.9.10', 'p_router', SUBJECTS)).toEqual({
      wanted: [
        { name: 'p_router-on-payment', filter: 'p.evt.payment.initiated' },
        { name: 'p_router-on-delivery', filter: 'p.evt.delivery.*' },
      ],
      others: [{ name: 'p_router', filter: SUBJECTS }, ...PER_SUBJECT],
    });
    expect(durableLayout('2.9.10', 'p_links', SUBJECTS.slice(1))).toEqual({
      wanted: [{ name: 'p_links', filter: 'p.evt.delivery.*' }],
      others: [
        { name: 'p_links-on-delivery-accepted', filter: 'p.evt.delivery.accepted' },
        { name: 'p_links-on-delivery-failed', filter: 'p.evt.delivery.failed' },
      ],
    });
  });

  it('is a durable per subject before 2.10 for a handler that takes events in any order, so it receives none of the others', () => {
    expect(durableLayout('2.9.10', 'p_router', SUBJECTS, { anyOrder: true })).toEqual({
      wanted: PER_SUBJECT,
      others: [
        { name: 'p_router', filter: SUBJECTS },
        { name: 'p_router-on-payment', filter: 'p.evt.payment.initiated' },
        { name: 'p_router-on-delivery', filter: 'p.evt.delivery.*' },
      ],
    });
  });

  it('is the durable itself, on its subject, for one subject on any server', () => {
    for (const version of ['2.9.10', '2.10.0', undefined])
      for (const anyOrder of [false, true])
        expect(durableLayout(version, 'p_links', SUBJECTS.slice(0, 1), { anyOrder })).toEqual({
          wanted: [{ name: 'p_links', filter: 'p.evt.payment.initiated' }],
          others: [],
        });
  });
});

describe('provisionDurables', () => {
  const system = createTestSystem('durables');
  const stream = system.naming.stream(EVENTS_STREAM);
  const subjects = ['payment.initiated', 'delivery.accepted', 'delivery.failed'].map((type) =>
    system.naming.subject(`evt.${type}`),
  );
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    await provisionEventsStream(nc, system.naming);
  });
  afterAll(async () => {
    await nc.close();
    await system.cleanup();
  });

  const publish = async (subject: string, count: number) => {
    for (let i = 0; i < count; i += 1) await jetstream(nc).publish(subject, '{}');
  };
  /** A durable as the server takes it: several subjects only where it filters on several. */
  const asServerTakes = (durable: Durable, layoutOfServer: Durable[]): Durable =>
    typeof durable.filter === 'string' || layoutOfServer.length === 1
      ? durable
      : { ...durable, filter: system.naming.subject(EVENTS_SUBJECTS) };

  it.each([false, true])(
    'takes over the position of the other layouts, replaying nothing acked and skipping nothing, and deletes them (any order: %s)',
    async (anyOrder) => {
      const jsm = await jetstreamManager(nc);
      const name = system.naming.consumer(`router-${anyOrder}`);
      const layout = durableLayout(serverVersion(nc), name, subjects, { anyOrder });
      const settings = { ackWaitNs: 30_000_000_000, deliverAll: true };
      // Durables as an earlier release laid them out (or as another server version does).
      const previous = layout.others.map((durable) => asServerTakes(durable, layout.wanted));
      await provisionDurables(jsm, stream, { wanted: previous, others: [] }, settings);
      await publish(subjects[0]!, 2);
      await publish(subjects[1]!, 2);
      // Each earlier durable handled and acked what was published so far.
      for (const durable of previous) {
        const messages = await (
          await jetstream(nc).consumers.get(stream, durable.name)
        ).fetch({
          max_messages: 10,
          expires: 1_000,
        });
        for await (const message of messages) {
          await message.ackAck();
          if (message.info.pending === 0) break;
        }
      }
      await publish(subjects[0]!, 1);
      await publish(subjects[2]!, 1);

      await provisionDurables(jsm, stream, layout, settings);
      const names = [];
      let pending = 0;
      for await (const info of jsm.consumers.list(stream)) {
        if (!info.name.startsWith(name)) continue;
        names.push(info.name);
        pending += info.num_pending;
      }
      expect(names.sort()).toEqual(layout.wanted.map((durable) => durable.name).sort());
      // Only the two events published after the earlier durables' ack floor remain to handle.
      expect(pending).toBe(2);
    },
  );
});
