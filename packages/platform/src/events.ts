import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JsMsg,
} from '@nats-io/jetstream';
import type { Registry } from 'prom-client';
import { EVENTS_STREAM, EVENTS_SUBJECTS, EventEnvelope, HEADER, eventSubject } from '@mmp/protocol';
import type { Logger } from './logger.js';
import { counter, histogram } from './metrics.js';
import { watchOf, type Naming, type WatchedConsumer } from './nats.js';

/** A domain event before it is published: what a state change writes into its outbox. */
export type PendingEvent = {
  id: string;
  type: string;
  occurredAt: string;
  projectId?: string;
  livemode?: boolean;
  data: unknown;
};

/** How long the stream remembers message ids to drop a re-published event. */
const DUPLICATE_WINDOW_NS = 10 * 60 * 1_000_000_000;

/** Creates the EVENTS stream if it does not exist; safe to call from every service at start. */
export async function provisionEventsStream(nc: NatsConnection, naming: Naming): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const name = naming.stream(EVENTS_STREAM);
  const config = {
    name,
    subjects: [naming.subject(EVENTS_SUBJECTS)],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: DUPLICATE_WINDOW_NS,
    // Events are the history the customers projection rebuilds from: keep them a year.
    max_age: 365 * 24 * 3600 * 1_000_000_000,
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

/**
 * Publishes with `Nats-Msg-Id` = event id: a re-publish after a crash (outbox relay) is
 * dropped by the stream within the duplicate window, and consumers de-duplicate beyond it.
 */
export function createEventPublisher(nc: NatsConnection, naming: Naming): EventPublisher {
  const js = jetstream(nc);
  return async (event, requestId) => {
    const hdrs = natsHeaders();
    if (requestId) hdrs.set(HEADER.requestId, requestId);
    await js.publish(naming.subject(eventSubject(event.type)), JSON.stringify(event), {
      msgID: event.id,
      headers: hdrs,
    });
  };
}

export type ReceivedEvent = EventEnvelope & { requestId?: string; redeliveries: number };

/** What a handler tells the consumer: done, or try this event again after a delay. */
export type HandleResult = void | { retryInMs: number };

export type EventConsumer = { stop(): Promise<void> };

/**
 * A durable consumer of the EVENTS stream. An event is acked only after its handler
 * finished (so the work is durable first), retried with a delay when the handler throws
 * or asks for it, and handlers must be idempotent: redelivery after a crash is normal.
 */
export async function consumeEvents(options: {
  nc: NatsConnection;
  naming: Naming;
  durable: string;
  /** Event types, e.g. `payment.completed`, or wildcards like `payment.*`. */
  types: string[];
  log: Logger;
  handle: (event: ReceivedEvent) => Promise<HandleResult>;
  /** Start from the first event in the stream (rebuilds) rather than only new ones. */
  deliverAll?: boolean;
  maxAckPendingMs?: number;
  /**
   * Events handled at once (default 1, in stream order). More suits handlers that wait on
   * the network per event and need no ordering, so that one slow peer does not hold up
   * every other event behind it.
   */
  concurrency?: number;
}): Promise<EventConsumer> {
  const { nc, naming, log } = options;
  const jsm = await jetstreamManager(nc);
  const stream = naming.stream(EVENTS_STREAM);
  const durable = naming.consumer(options.durable);
  const subjects = options.types.map((type) => naming.subject(eventSubject(type)));
  const filter = consumerFilter(nc, subjects, naming.subject(EVENTS_SUBJECTS));
  try {
    await jsm.consumers.info(stream, durable);
    await jsm.consumers.update(stream, durable, filter);
  } catch {
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: options.deliverAll === false ? DeliverPolicy.New : DeliverPolicy.All,
      ...filter,
      ack_wait: (options.maxAckPendingMs ?? 30_000) * 1_000_000,
      max_deliver: -1,
    });
  }
  const consumer = await jetstream(nc).consumers.get(stream, durable);
  const messages = await consumer.consume({ max_messages: 64 });
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const inFlight = new Set<Promise<void>>();
  const watch = watchOf(nc);
  let ended = false;
  // The client keeps asking for a deleted consumer (or stream) in case it comes back;
  // meanwhile nothing is consumed, which readiness must show.
  let missing = false;
  void (async () => {
    for await (const status of messages.status()) {
      if (['consumer_deleted', 'consumer_not_found', 'stream_not_found'].includes(status.type)) {
        if (!missing) log.error({ durable, status: status.type }, 'event consumer is gone; not ready');
        missing = true;
      }
    }
  })();
  const watched: WatchedConsumer = { durable: options.durable, running: () => !ended && !missing };
  watch?.consumers.add(watched);
  const record = watch ? consumerMetrics(watch.registry, options.durable) : undefined;
  const handle = async (event: ReceivedEvent): Promise<HandleResult> => {
    if (!record) return options.handle(event);
    if (event.redeliveries > 0) record.redelivered();
    const stopTimer = record.started();
    try {
      const result = await options.handle(event);
      record.outcome(result && 'retryInMs' in result ? 'retry' : 'ack');
      return result;
    } catch (error) {
      record.outcome('failed');
      throw error;
    } finally {
      stopTimer();
    }
  };
  const done = (async () => {
    for await (const msg of messages) {
      missing = false;
      // Only when the server could not filter on every subject (see consumerFilter).
      if (!subjects.some((pattern) => subjectMatches(pattern, msg.subject))) {
        msg.ack();
        continue;
      }
      const work: Promise<void> = handleOne(msg, handle, log, () => record?.outcome('dropped'))
        .catch((error: unknown) =>
          log.error({ err: error, seq: msg.seq }, 'event left unacknowledged; JetStream will redeliver it'),
        )
        .finally(() => inFlight.delete(work));
      inFlight.add(work);
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  })().finally(() => {
    // Ended without stop() (the consumer was deleted, the connection closed): readiness says so.
    ended = true;
  });
  return {
    async stop() {
      watch?.consumers.delete(watched);
      await messages.close();
      await done;
    },
  };
}

type EventOutcome = 'ack' | 'retry' | 'failed' | 'dropped';

function consumerMetrics(registry: Registry, durable: string) {
  const handled = counter(
    registry,
    'mmp_events_handled_total',
    'Events handled by a durable consumer: ack, retry (asked to), failed (handler threw; redelivered later), dropped (malformed).',
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

/**
 * nats-server before 2.10 takes a single filter subject per consumer. One subject (a type
 * or a wildcard like `payment.*`) needs no more; several on such a server filter on every
 * event and the consumer skips the others itself.
 */
function consumerFilter(nc: NatsConnection, subjects: string[], everything: string) {
  if (subjects.length === 1) return { filter_subject: subjects[0]! };
  const [major = 0, minor = 0] = (nc.info?.version ?? '0.0').split('.').map(Number);
  return major > 2 || (major === 2 && minor >= 10)
    ? { filter_subjects: subjects }
    : { filter_subject: everything };
}

/** NATS subject matching: `*` is one token, a trailing `>` one or more. */
function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const got = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '>') return got.length > i;
    if (i >= got.length || (want[i] !== '*' && want[i] !== got[i])) return false;
  }
  return want.length === got.length;
}

async function handleOne(
  msg: JsMsg,
  handle: (event: ReceivedEvent) => Promise<HandleResult>,
  log: Logger,
  dropped: () => void,
) {
  let envelope: EventEnvelope;
  try {
    envelope = EventEnvelope.parse(msg.json());
  } catch (error) {
    // A malformed event can never succeed; keep it out of the way but say so loudly.
    log.error({ err: error, subject: msg.subject, seq: msg.seq }, 'dropping malformed event');
    dropped();
    msg.term();
    return;
  }
  const event: ReceivedEvent = {
    ...envelope,
    requestId: msg.headers?.get(HEADER.requestId) || undefined,
    redeliveries: msg.info.deliveryCount - 1,
  };
  try {
    const result = await handle(event);
    if (result && 'retryInMs' in result) msg.nak(result.retryInMs);
    else msg.ack();
  } catch (error) {
    const delay = Math.min(60_000, 500 * 2 ** Math.min(event.redeliveries, 7));
    log.warn(
      { err: error, eventId: event.id, type: event.type, retryInMs: delay },
      'event handler failed; will retry',
    );
    msg.nak(delay);
  }
}
