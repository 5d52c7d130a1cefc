import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, RetentionPolicy, StorageType, type JsMsg } from '@nats-io/jetstream';
import type { Registry } from 'prom-client';
import {
  EVENT_CONTRACTS,
  EVENTS_STREAM,
  EVENTS_SUBJECTS,
  EventEnvelope,
  HEADER,
  eventSubject,
  type EventContract,
  type EventOf,
  type PendingEvent,
  type ServiceName,
} from '@mmp/protocol';
import { durableLayout, provisionDurables, serverVersion } from './event-durables.js';
import type { Logger } from './logger.js';
import { counter, histogram } from './metrics.js';
import type { Naming } from './nats.js';

/** How long the stream remembers message ids to drop a re-published event. */
const DUPLICATE_WINDOW_NS = 10 * 60 * 1_000_000_000;

/** Creates the EVENTS stream if it does not exist; safe to call from every service at start. */
export async function provisionEventsStream(
  nc: NatsConnection,
  naming: Naming,
  options: { replicas?: number } = {},
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const name = naming.stream(EVENTS_STREAM);
  const config = {
    name,
    subjects: [naming.subject(EVENTS_SUBJECTS)],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: DUPLICATE_WINDOW_NS,
    // Events are the history projections rebuild from: keep them a year.
    max_age: 365 * 24 * 3600 * 1_000_000_000,
    num_replicas: options.replicas ?? 1,
  };
  try {
    await jsm.streams.info(name);
  } catch {
    try {
      await jsm.streams.add(config);
    } catch (error) {
      // Another replica may have created it between our two calls.
      await jsm.streams.info(name).catch(() => {
        throw error;
      });
    }
  }
}

export type EventPublisher = (event: PendingEvent, requestId?: string) => Promise<void>;

/** The headers each event type carries, read from its data (EventContract's `headers`). */
const HEADERS_OF = new Map(
  EVENT_CONTRACTS.flatMap((contract) =>
    contract.headers ? [[contract.type, contract.headers] as const] : [],
  ),
);

/**
 * An event whose data its contract's headers cannot read (one that skipped `newEvent`) is
 * published without them, and every consumer reads it, as before the contract had headers.
 */
function headersOf(event: PendingEvent): Record<string, string> {
  try {
    return HEADERS_OF.get(event.type)?.(event.data) ?? {};
  } catch {
    return {};
  }
}

/**
 * Publishes with `Nats-Msg-Id` = event id: a re-publish after a crash (outbox relay) is
 * dropped by the stream within the duplicate window, and consumers de-duplicate beyond it.
 * Only events whose contracts name this service as producer may leave it.
 */
export function createEventPublisher(
  nc: NatsConnection,
  naming: Naming,
  producer: { service: ServiceName; types: ReadonlySet<string> },
): EventPublisher {
  const js = jetstream(nc);
  return async (event, requestId) => {
    if (!producer.types.has(event.type)) {
      throw new Error(`${producer.service} is not the producer of ${event.type}; see its contract`);
    }
    const hdrs = natsHeaders();
    if (requestId) hdrs.set(HEADER.requestId, requestId);
    for (const [name, value] of Object.entries(headersOf(event))) hdrs.set(name, value);
    await js.publish(naming.subject(eventSubject(event.type)), JSON.stringify(event), {
      msgID: event.id,
      headers: hdrs,
    });
  };
}

/** An event as a handler receives it: its contract's data, parsed, and how often it came. */
export type ReceivedEvent<C extends EventContract = EventContract> = EventOf<C> & {
  requestId?: string;
  redeliveries: number;
};

/** What a handler tells the consumer: done, or try this event again after a delay. */
export type HandleResult = void | { retryInMs: number };

export type ConsumerSpec<Cs extends readonly EventContract[]> = {
  /** The durable consumer's name: its position in the stream survives restarts. */
  durable: string;
  events: Cs;
  handle: (event: ReceivedEvent<Cs[number]>) => Promise<HandleResult>;
  /** Start from the first event in the stream (rebuilds) rather than only new ones. */
  deliverAll?: boolean;
  /** How long JetStream waits for an ack before redelivering; cover the slowest handler. */
  ackWaitMs?: number;
  /**
   * Remember each event handled (in the service's store) and skip it when it comes again:
   * for handlers whose effect a redelivery would repeat.
   */
  dedupe?: boolean;
  /**
   * Events handled at once (default 1, in stream order). More suits handlers that wait on
   * the network per event and need no ordering, so that one slow peer does not hold up
   * every other event behind it.
   */
  concurrency?: number;
  /**
   * With a concurrency above 1, the lane of an event: events of one lane (an order, a rail)
   * are handled one after another in stream order, those of different lanes side by side.
   * Without it, events handled at once keep no order among themselves.
   */
  laneOf?: (event: ReceivedEvent<Cs[number]>) => string;
  /**
   * The handler takes the events of one aggregate in any order (its writes are guarded by
   * the state each event leaves), so a server before 2.10 may deliver each type through a
   * durable of its own, exactly, rather than the aggregate's every event (durableLayout).
   */
  anyOrder?: boolean;
  /**
   * Header values that say an event is none of this consumer's business (see EventContract's
   * `headers`): an event carrying every one of them is acked unread, its data neither parsed
   * nor handled. An event without the header (published before its contract had it) is read.
   */
  passOver?: Readonly<Record<string, string>>;
};

export type EventConsumer = { stop(): Promise<void>; running(): boolean };

type EventOutcome = 'ack' | 'retry' | 'failed' | 'dropped' | 'too_new' | 'passed_over';

function consumerMetrics(registry: Registry | undefined, durable: string) {
  if (!registry) return undefined;
  const handled = counter(
    registry,
    'mmp_events_handled_total',
    'Events handled by a durable consumer: ack, retry (asked to), failed (handler threw; redelivered later), dropped (breaks its contract), too_new (a version this service cannot read yet; redelivered later), passed_over (its headers say it is not for this consumer; acked unread).',
    ['consumer', 'outcome'],
  );
  const redeliveries = counter(
    registry,
    'mmp_event_redeliveries_total',
    'Events a durable consumer received more than once (a retry, a crash, an ack timeout).',
    ['consumer'],
  );
  const seconds = histogram(
    registry,
    'mmp_event_handle_duration_seconds',
    'Time a durable consumer spent on one event.',
    ['consumer'],
  );
  return {
    outcome: (outcome: EventOutcome) => handled.inc({ consumer: durable, outcome }),
    redelivered: () => redeliveries.inc({ consumer: durable }),
    started: () => seconds.startTimer({ consumer: durable }),
  };
}

/** Refuses, at start, a consumer of an event whose contract does not list this service. */
function checkConsumers(service: ServiceName, events: readonly EventContract[]): void {
  for (const contract of events) {
    if (!contract.consumers.includes(service)) {
      throw new Error(`${service} is not a consumer of ${contract.type}; add it to the contract`);
    }
  }
}

/** Reading a message against the contracts: its event, or why it cannot be handled. */
type Reading =
  | { kind: 'event'; event: ReceivedEvent }
  | { kind: keyof typeof UNREADABLE; detail: { issues: unknown } | { version: number } }
  | { kind: 'other' };

/** What becomes of an event this service cannot read (see consumeEvents), logged with its detail. */
const UNREADABLE = {
  malformed: {
    message: 'dropping an event that breaks its contract',
    outcome: 'dropped',
    settle: (msg: JsMsg) => msg.term(),
  },
  too_new: {
    message: 'event of a version this service cannot read yet; waiting for its upgrade',
    outcome: 'too_new',
    settle: (msg: JsMsg) => msg.nak(60_000),
  },
} as const;

function readEvent(msg: JsMsg, byType: Map<string, EventContract>): Reading {
  const envelope = EventEnvelope.safeParse(safeJson(msg));
  if (!envelope.success) return { kind: 'malformed', detail: { issues: envelope.error.issues } };
  const contract = byType.get(envelope.data.type);
  if (!contract) return { kind: 'other' };
  if (envelope.data.version > contract.version)
    return { kind: 'too_new', detail: { version: envelope.data.version } };
  const data = contract.data.safeParse(envelope.data.data);
  if (!data.success) return { kind: 'malformed', detail: { issues: data.error.issues } };
  return {
    kind: 'event',
    event: {
      ...envelope.data,
      data: data.data,
      requestId: msg.headers?.get(HEADER.requestId) || undefined,
      redeliveries: msg.info.deliveryCount - 1,
    } as ReceivedEvent,
  };
}

function safeJson(msg: JsMsg): unknown {
  try {
    return msg.json();
  } catch {
    return undefined;
  }
}

/**
 * A durable consumer of the EVENTS stream. An event is acked only after its handler
 * finished (so the work is durable first), retried with a delay when the handler throws
 * or asks for it; handlers are idempotent, since redelivery after a crash is normal. An
 * event that breaks its contract can never succeed: it is logged, counted and terminated,
 * never acked in silence. One of a newer version than this service reads waits for the
 * upgrade (redelivered after a minute), so a rollout in the wrong order loses nothing.
 */
export async function consumeEvents<Cs extends readonly EventContract[]>(
  options: ConsumerSpec<Cs> & {
    nc: NatsConnection;
    naming: Naming;
    service: ServiceName;
    log: Logger;
    metrics?: Registry;
  },
): Promise<EventConsumer> {
  const { nc, naming, log } = options;
  checkConsumers(options.service, options.events);
  const byType = new Map(options.events.map((contract) => [contract.type, contract as EventContract]));
  const jsm = await jetstreamManager(nc);
  const stream = naming.stream(EVENTS_STREAM);
  const durable = naming.consumer(options.durable);
  const subjects = options.events.map((contract) => naming.subject(contract.subject));
  const layout = durableLayout(serverVersion(nc), durable, subjects, { anyOrder: options.anyOrder });
  await provisionDurables(jsm, stream, layout, {
    ackWaitNs: (options.ackWaitMs ?? 30_000) * 1_000_000,
    deliverAll: options.deliverAll !== false,
  });
  const concurrency = Math.max(1, options.concurrency ?? 1);
  // The client asks for more once a quarter of its buffer is taken, so a buffer of 2 cost a
  // pull request per event (a third message on the wire beside the delivery and the ack,
  // and a wait on the server between events under load). 16 asks every 4 events, and what
  // waits in it unacked is 16 quick handlings, far inside ack_wait; handlers that wait on the
  // network run with a concurrency and an ack_wait of their own, and the buffer follows.
  const feeds = await Promise.all(
    layout.wanted.map(async ({ name }) =>
      (await jetstream(nc).consumers.get(stream, name)).consume({
        max_messages: Math.max(16, concurrency * 2),
      }),
    ),
  );
  const inFlight = new Set<Promise<void>>();
  const record = consumerMetrics(options.metrics, options.durable);
  let ended = false;
  // The client keeps asking for a deleted consumer (or stream) in case it comes back;
  // meanwhile nothing is consumed, which readiness must show.
  let missing = false;
  for (const messages of feeds) {
    void (async () => {
      for await (const status of messages.status()) {
        if (['consumer_deleted', 'consumer_not_found', 'stream_not_found'].includes(status.type)) {
          if (!missing) log.error({ durable, status: status.type }, 'event consumer is gone; not ready');
          missing = true;
        }
      }
    })();
  }

  async function handleOne(msg: JsMsg, reading: Reading): Promise<void> {
    if (reading.kind === 'other') {
      // On one of its subjects, a type none of its contracts names (a producer's mistake).
      msg.ack();
      return;
    }
    if (reading.kind !== 'event') {
      const unreadable = UNREADABLE[reading.kind];
      log.error(
        { durable: options.durable, subject: msg.subject, seq: msg.seq, ...reading.detail },
        unreadable.message,
      );
      record?.outcome(unreadable.outcome);
      unreadable.settle(msg);
      return;
    }
    const { event } = reading;
    if (event.redeliveries > 0) record?.redelivered();
    const stopTimer = record?.started();
    try {
      const result = await options.handle(event as ReceivedEvent<Cs[number]>);
      if (result && 'retryInMs' in result) {
        record?.outcome('retry');
        msg.nak(result.retryInMs);
      } else {
        record?.outcome('ack');
        msg.ack();
      }
    } catch (error) {
      record?.outcome('failed');
      const delay = Math.min(60_000, 500 * 2 ** Math.min(event.redeliveries, 7));
      log.warn(
        { err: error, eventId: event.id, type: event.type, retryInMs: delay },
        'event handler failed; will retry',
      );
      msg.nak(delay);
    } finally {
      stopTimer?.();
    }
  }

  // The last handling of each lane: the next event of the lane starts once it has finished.
  const lanes = new Map<string, Promise<void>>();
  // Only handlings that run take a slot: events waiting behind their lane do not, so a burst
  // on one lane leaves the others going. Those waiting are bounded too (held), since every
  // one of them is an unacked delivery whose ack_wait is running.
  let running = 0;
  const held = concurrency * 4;
  const run = (msg: JsMsg, reading: Reading) => {
    running += 1;
    return handleOne(msg, reading).finally(() => (running -= 1));
  };
  const ownSubjects = new Set(subjects);
  const passOver = Object.entries(options.passOver ?? {});
  const passesOver = (msg: JsMsg) =>
    passOver.length > 0 && passOver.every(([name, value]) => msg.headers?.get(name) === value);
  // Each durable's messages go through one dispatch, so lanes and the concurrency hold
  // across them (a consumer of several aggregates has a durable each before nats-server 2.10).
  const pump = async (messages: (typeof feeds)[number]) => {
    for await (const msg of messages) {
      missing = false;
      if (!ownSubjects.has(msg.subject)) {
        // Only where the server could not filter on every subject (see durableLayout): an
        // event of others, acked unread (no parse, no schema), and no business of this consumer.
        msg.ack();
        continue;
      }
      if (passesOver(msg)) {
        record?.outcome('passed_over');
        msg.ack();
        continue;
      }
      const reading = readEvent(msg, byType);
      const lane =
        reading.kind === 'event' ? options.laneOf?.(reading.event as ReceivedEvent<Cs[number]>) : undefined;
      const ahead = lane === undefined ? undefined : lanes.get(lane);
      const work: Promise<void> = (ahead ? ahead.then(() => run(msg, reading)) : run(msg, reading))
        .catch((error: unknown) =>
          log.error({ err: error, seq: msg.seq }, 'event left unacknowledged; JetStream will redeliver it'),
        )
        .finally(() => {
          inFlight.delete(work);
          if (lane !== undefined && lanes.get(lane) === work) lanes.delete(lane);
        });
      if (lane !== undefined) lanes.set(lane, work);
      inFlight.add(work);
      while (running >= concurrency || inFlight.size >= held) await Promise.race(inFlight);
    }
  };
  // One durable ended without stop() (deleted, the connection closed): readiness says so.
  const done = Promise.all(feeds.map((messages) => pump(messages).finally(() => (ended = true)))).then(() =>
    Promise.all(inFlight),
  );
  return {
    running: () => !ended && !missing,
    async stop() {
      await Promise.all(feeds.map((messages) => messages.close()));
      await done;
    },
  };
}

/**
 * Replays every stored event of `events` from the first, through an ephemeral ordered
 * consumer, for rebuilding a projection or a ledger. Malformed events are logged and
 * skipped: a rebuild reports what it could read. Returns the number of events read.
 */
export async function replayEvents<Cs extends readonly EventContract[]>(options: {
  nc: NatsConnection;
  naming: Naming;
  service: ServiceName;
  log: Logger;
  events: Cs;
  handle: (event: ReceivedEvent<Cs[number]>) => Promise<void>;
}): Promise<number> {
  checkConsumers(options.service, options.events);
  const byType = new Map(options.events.map((contract) => [contract.type, contract as EventContract]));
  const subjects = options.events.map((contract) => options.naming.subject(contract.subject));
  const consumer = await jetstream(options.nc).consumers.get(options.naming.stream(EVENTS_STREAM), {
    filter_subjects: replayFilter(options.nc, subjects, options.naming.subject(EVENTS_SUBJECTS)),
  });
  if ((await consumer.info()).num_pending === 0) return 0;
  let count = 0;
  const messages = await consumer.consume({ max_messages: 256 });
  try {
    for await (const msg of messages) {
      const reading = readEvent(msg, byType);
      if (reading.kind === 'event') await options.handle(reading.event as ReceivedEvent<Cs[number]>);
      else if (reading.kind !== 'other')
        options.log.error(
          { seq: msg.seq, reading: reading.kind },
          'skipping an unreadable event during replay',
        );
      count += 1;
      if (msg.info.pending === 0) break;
    }
  } finally {
    await messages.close();
  }
  return count;
}

/**
 * The one ephemeral consumer of a replay filters as a durable would (durableLayout); where
 * that takes several durables (a server before 2.10), on every event, and reading skips what
 * no contract of the consumer names.
 */
function replayFilter(nc: NatsConnection, subjects: string[], everything: string): string | string[] {
  const { wanted } = durableLayout(serverVersion(nc), 'replay', subjects);
  return wanted.length === 1 ? wanted[0]!.filter : everything;
}
