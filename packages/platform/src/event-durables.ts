import type { NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';

/** One durable consumer of the EVENTS stream: its name and the subjects it filters on. */
export type Durable = { name: string; filter: string | string[] };

/**
 * The durable consumers that carry a consumer's subjects, and those the other ways of laying
 * them out would have made (whose position a new layout takes over).
 *
 * nats-server 2.10 and later filter one consumer on several subjects: one durable, `name`,
 * on exactly its subjects. Before 2.10 a consumer takes a single filter subject. The subjects
 * of one aggregate then become its wildcard (`evt.payment.*`: the aggregate's other events
 * come too, and are acked unread); those of several aggregates get a durable each,
 * `<name>-on-<aggregate>`, handled together. One durable on every event instead (as until
 * 2026-11-28) made each such consumer receive, and ack, every event of the system. Events of
 * different aggregates then keep no order among themselves, which no handler relies on: such
 * events come from different services, in no order the stream fixes.
 *
 * A consumer whose handler takes an aggregate's events in any order (`anyOrder`) gets, before
 * 2.10, a durable per subject, `<name>-on-<aggregate>-<event>`, rather than the wildcard:
 * a follower of how payments end no longer receives, and acks unread, every payment created.
 */
export function durableLayout(
  serverVersion: string | undefined,
  name: string,
  subjects: readonly string[],
  options: { anyOrder?: boolean } = {},
): { wanted: Durable[]; others: Durable[] } {
  const byAggregate = new Map<string, string[]>();
  for (const subject of subjects) {
    const aggregate = subject.slice(0, subject.lastIndexOf('.'));
    byAggregate.set(aggregate, [...(byAggregate.get(aggregate) ?? []), subject]);
  }
  const lastToken = (subject: string) => subject.slice(subject.lastIndexOf('.') + 1);
  const alone = (layout: Durable[]): Durable[] =>
    layout.length === 1 ? [{ name, filter: layout[0]!.filter }] : layout;
  const one: Durable[] = [{ name, filter: subjects.length === 1 ? subjects[0]! : [...subjects] }];
  const perAggregate = alone(
    [...byAggregate].map(([aggregate, ofAggregate]) => ({
      name: `${name}-on-${lastToken(aggregate)}`,
      filter: ofAggregate.length === 1 ? ofAggregate[0]! : `${aggregate}.*`,
    })),
  );
  const perSubject = alone(
    subjects.map((subject) => {
      const aggregate = subject.slice(0, subject.lastIndexOf('.'));
      return { name: `${name}-on-${lastToken(aggregate)}-${lastToken(subject)}`, filter: subject };
    }),
  );
  const wanted = filtersManySubjects(serverVersion) ? one : options.anyOrder ? perSubject : perAggregate;
  const names = new Set(wanted.map((durable) => durable.name));
  const others = new Map<string, Durable>();
  for (const durable of [...one, ...perAggregate, ...perSubject])
    if (!names.has(durable.name) && !others.has(durable.name)) others.set(durable.name, durable);
  return { wanted, others: [...others.values()] };
}

function filtersManySubjects(serverVersion: string | undefined): boolean {
  const [major = 0, minor = 0] = (serverVersion ?? '0.0').split('.').map(Number);
  return major > 2 || (major === 2 && minor >= 10);
}

/** The server's version, as the connection learnt it. */
export const serverVersion = (nc: NatsConnection) => nc.info?.version;

// The other key is written as undefined: an update merges into the consumer's configuration,
// and a consumer cannot keep both kinds of filter.
const filterConfig = (filter: Durable['filter']) =>
  typeof filter === 'string'
    ? { filter_subject: filter, filter_subjects: undefined }
    : { filter_subjects: filter, filter_subject: undefined };

/**
 * The stream sequence up to which `durable` had handled every event of its own. A durable on
 * a rare subject acks nothing for long stretches of the stream, so its ack floor can lag far
 * behind: with every delivery acked, it had got to just before its next event, or to the
 * stream's end when none waits.
 */
async function positionOf(
  jsm: JetStreamManager,
  stream: string,
  durable: Durable,
  info: ConsumerInfo,
  streamEnd: number,
): Promise<number> {
  const floor = info.ack_floor.stream_seq;
  if (info.num_ack_pending > 0) return floor;
  if (info.num_pending === 0) return Math.max(streamEnd, floor);
  const subjects = typeof durable.filter === 'string' ? [durable.filter] : durable.filter;
  const next = await Promise.all(
    subjects.map(async (subject) => {
      // The server reads `next_by_subj` (2.9 and later); the client's type lists only direct gets.
      const query = { seq: floor + 1, next_by_subj: subject } as { seq: number };
      const message = await jsm.streams.getMessage(stream, query).catch(() => null);
      return message?.seq ?? Number.POSITIVE_INFINITY;
    }),
  );
  const first = Math.min(...next);
  return Number.isFinite(first) ? first - 1 : floor;
}

/**
 * Creates or updates the wanted durables. A wanted durable that does not exist yet starts
 * where the durables of the other layouts had got to (the lowest of their positions, so
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
  // Read before the durables: whatever a caught-up durable had not seen came after it.
  const streamEnd = layout.others.length > 0 ? (await jsm.streams.info(stream)).state.last_seq : 0;
  const positions = [];
  const predecessors = [];
  for (const other of layout.others) {
    const info = await jsm.consumers.info(stream, other.name).catch(() => null);
    if (!info) continue;
    predecessors.push(info);
    positions.push(await positionOf(jsm, stream, other, info, streamEnd));
  }
  const resumeAt = positions.length > 0 ? Math.min(...positions) + 1 : null;
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
