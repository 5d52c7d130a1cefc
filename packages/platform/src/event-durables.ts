import type { NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, type JetStreamManager } from '@nats-io/jetstream';

/** One durable consumer of the EVENTS stream: its name and the subjects it filters on. */
export type Durable = { name: string; filter: string | string[] };

/**
 * The durable consumers that carry a consumer's subjects, and those the other way of laying
 * them out would have made (whose position a new layout takes over).
 *
 * nats-server 2.10 and later filter one consumer on several subjects: one durable, `name`.
 * Before 2.10 a consumer takes a single filter subject. The subjects of one aggregate become
 * its wildcard (`evt.payment.*`: the aggregate's other events come too, and are acked unread);
 * those of several aggregates get a durable each, `<name>-on-<aggregate>`, handled together.
 * One durable on every event instead (as until 2026-11-28) made each such consumer receive,
 * and ack, every event of the system: three of them did, four of the five deliveries of a
 * payment's creation were of that kind, and each cost a wake-up of the consumer and of the
 * server. Events of different aggregates then keep no order among themselves, which no
 * handler relies on: such events come from different services, in no order the stream fixes.
 */
export function durableLayout(
  serverVersion: string | undefined,
  name: string,
  subjects: readonly string[],
): { wanted: Durable[]; others: Durable[] } {
  const byAggregate = new Map<string, string[]>();
  for (const subject of subjects) {
    const aggregate = subject.slice(0, subject.lastIndexOf('.'));
    byAggregate.set(aggregate, [...(byAggregate.get(aggregate) ?? []), subject]);
  }
  const split = [...byAggregate].map(([aggregate, ofAggregate]) => ({
    name: `${name}-on-${aggregate.slice(aggregate.lastIndexOf('.') + 1)}`,
    filter: ofAggregate.length === 1 ? ofAggregate[0]! : `${aggregate}.*`,
  }));
  if (split.length === 1) return { wanted: [{ name, filter: split[0]!.filter }], others: [] };
  const one = { name, filter: [...subjects] };
  return filtersManySubjects(serverVersion)
    ? { wanted: [one], others: split }
    : { wanted: split, others: [one] };
}

function filtersManySubjects(serverVersion: string | undefined): boolean {
  const [major = 0, minor = 0] = (serverVersion ?? '0.0').split('.').map(Number);
  return major > 2 || (major === 2 && minor >= 10);
}

/** The server's version, as the connection learnt it. */
export const serverVersion = (nc: NatsConnection) => nc.info?.version;

const filterConfig = (filter: Durable['filter']) =>
  typeof filter === 'string' ? { filter_subject: filter } : { filter_subjects: filter };

/**
 * Creates or updates the wanted durables. A wanted durable that does not exist yet starts
 * where the durables of the other layout had got to (the lowest of their ack floors, so
 * nothing unacked is skipped; what was handled but not acked comes again, which handlers
 * take), and those are deleted once the wanted ones exist: a server upgrade, or a change of a
 * consumer's events, neither replays the stream nor skips an event.
 */
export async function provisionDurables(
  jsm: JetStreamManager,
  stream: string,
  layout: { wanted: Durable[]; others: Durable[] },
  settings: { ackWaitNs: number; deliverAll: boolean },
): Promise<void> {
  const predecessors = [];
  for (const other of layout.others) {
    const info = await jsm.consumers.info(stream, other.name).catch(() => null);
    if (info) predecessors.push(info);
  }
  const resumeAt =
    predecessors.length > 0 ? Math.min(...predecessors.map((info) => info.ack_floor.stream_seq)) + 1 : null;
  for (const durable of layout.wanted) {
    const exists = await jsm.consumers.info(stream, durable.name).catch(() => null);
    if (exists) {
      await jsm.consumers.update(stream, durable.name, {
        ...filterConfig(durable.filter),
        ack_wait: settings.ackWaitNs,
      });
      continue;
    }
    await jsm.consumers.add(stream, {
      durable_name: durable.name,
      ack_policy: AckPolicy.Explicit,
      ...(resumeAt !== null
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: resumeAt }
        : { deliver_policy: settings.deliverAll ? DeliverPolicy.All : DeliverPolicy.New }),
      ...filterConfig(durable.filter),
      ack_wait: settings.ackWaitNs,
      max_deliver: -1,
    });
  }
  for (const predecessor of predecessors) await jsm.consumers.delete(stream, predecessor.name);
}
