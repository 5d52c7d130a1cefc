import type { Registry } from 'prom-client';
import type { PendingEvent } from '@mmp/protocol';
import type { Collection, Doc, Filter, FindOptions, Update } from './store/port.js';
import type { EventPublisher } from './events.js';
import type { Logger } from './logger.js';
import { countLoopRun, counter, gauge } from './metrics.js';

/**
 * The outbox lives inside the aggregate's own document: a state change and its events are
 * one single-document write, atomic in MongoDB and in the embedded store alike, with no
 * transaction. A document with `_outboxPending > 0` has events still to publish; the
 * relay finds them through an index and publishes them with their id as `Nats-Msg-Id`.
 */
export type OutboxFields = { _outbox?: PendingEvent[]; _outboxPending?: number };

/**
 * What the relay needs of an aggregate collection. Every `Collection<T>` is one, whatever
 * its document type, so a service hands its collections over as they are.
 */
export interface OutboxCollection {
  readonly name: string;
  find(filter: Filter, options?: FindOptions): Promise<Doc[]>;
  updateMany(filter: Filter, update: Update): Promise<number>;
  ensureIndex: Collection<Doc>['ensureIndex'];
}

export type Outbox = {
  /**
   * Inserts a new aggregate together with its events, and starts publishing them: the events
   * leave before any later write's, but the stream may not hold them yet when this resolves.
   */
  insert<T extends Doc>(
    collection: Collection<T>,
    doc: T,
    events: PendingEvent[],
    requestId?: string,
  ): Promise<void>;
  /**
   * Compare-and-set: applies `update` to the document matching `filter` (which carries the
   * guard on the current state) and records `events` in the same write. Returns the updated
   * document, or null when the guard failed (then nothing was written or published).
   */
  update<T extends Doc>(
    collection: Collection<T>,
    filter: Filter,
    update: Update,
    events: PendingEvent[],
    requestId?: string,
  ): Promise<T | null>;
  /** Publishes whatever a crash left unpublished in the outbox's collections. */
  relayOnce(): Promise<number>;
  /**
   * Lets the publishes under way finish, then writes the marks still waiting (see
   * MARK_DELAY_MS); at stop, after the last write.
   */
  close(): Promise<void>;
};

/**
 * How long a published event's mark waits for others. A mark is a write of its own, and the
 * embedded store commits the writes of one moment together: marking each event alone, right
 * after its publish, cost a create about a third of the payments service's store time (its
 * own commit of the same pages the insert had just written). Until its mark is written an
 * event is remembered here as published, so nothing publishes it again; a crash in between
 * leaves it to the relay, whose copy the stream drops by its `Nats-Msg-Id`.
 */
const MARK_DELAY_MS = 50;
/** Marks written at once without waiting for the delay. */
const MARK_BATCH = 256;

export function createOutbox(options: {
  publish: EventPublisher;
  log: Logger;
  /** Collections holding aggregates with outboxes; the relay scans these. */
  collections: readonly OutboxCollection[];
  /** The service's registry: backlog, relay failures and relay passes are recorded there. */
  metrics?: Registry;
}): Outbox {
  const { publish, log } = options;
  const relayFailures = options.metrics
    ? counter(
        options.metrics,
        'mmp_outbox_relay_failures_total',
        'Outbox relay passes that failed to publish (NATS away); their events wait for the next pass.',
      )
    : undefined;
  if (options.metrics) watchBacklog(options.metrics, options.collections);

  /** Publishes still waiting for the stream's acknowledgement, and their events' ids. */
  const publishing = new Set<Promise<void>>();
  const sending = new Set<string>();

  type Mark = { collection: OutboxCollection; docId: unknown };
  /** Events published whose marks are not written yet, by event id. */
  const published = new Map<string, Mark>();
  let markTimer: NodeJS.Timeout | undefined;
  let marking: Promise<void> = Promise.resolve();
  let markingQueued = false;

  function markLater(collection: OutboxCollection, docId: unknown, eventId: string) {
    published.set(eventId, { collection, docId });
    if (published.size >= MARK_BATCH) void writeMarks();
    else markTimer ??= setTimeout(() => void writeMarks(), MARK_DELAY_MS).unref();
  }

  /** Writes every waiting mark, together; one at a time, so a mark is never written twice. */
  function writeMarks(): Promise<void> {
    clearTimeout(markTimer);
    markTimer = undefined;
    if (markingQueued) return marking;
    markingQueued = true;
    marking = marking.then(async () => {
      markingQueued = false;
      const batch = [...published];
      await Promise.all(
        batch.map(async ([eventId, { collection, docId }]) => {
          try {
            // Guarded on the event still being there, so a relay pass and a request marking
            // the same event decrement the counter once.
            await collection.updateMany(
              { _id: docId, '_outbox.id': eventId },
              { $pull: { _outbox: { id: eventId } }, $inc: { _outboxPending: -1 } },
            );
          } catch (error) {
            log.warn({ err: error, collection: collection.name, id: docId }, 'published event left to relay');
          } finally {
            published.delete(eventId);
          }
        }),
      );
    });
    return marking;
  }

  /** Publishes the document's events not published yet; returns how many it published. */
  async function flush(collection: OutboxCollection, doc: Doc & OutboxFields, requestId?: string) {
    let count = 0;
    for (const event of doc._outbox ?? []) {
      if (published.has(event.id) || sending.has(event.id)) continue;
      sending.add(event.id);
      try {
        await publish(event, requestId);
      } finally {
        sending.delete(event.id);
      }
      markLater(collection, doc._id, event.id);
      count += 1;
    }
    return count;
  }

  /**
   * Publishes the document's events without waiting for the stream to store them: the write
   * is durable already, so the caller may answer now, and its answer leaves in the same
   * socket write as the events (waiting cost every write a second write and a round trip to
   * the stream). If publishing fails, the relay publishes later.
   */
  function publishInBackground(collection: OutboxCollection, doc: Doc, requestId?: string): void {
    const published: Promise<void> = flush(collection, doc, requestId)
      .then(() => undefined)
      .catch((error: unknown) =>
        log.warn({ err: error, collection: collection.name, id: doc._id }, 'event publish deferred to relay'),
      )
      .finally(() => publishing.delete(published));
    publishing.add(published);
  }

  async function relayPass(): Promise<number> {
    // The events published a moment ago are not a backlog: marked first, the scan skips them.
    await Promise.all(publishing);
    await writeMarks();
    let count = 0;
    for (const collection of options.collections) {
      const pending = await collection.find({ _outboxPending: { $gt: 0 } }, { limit: 200 });
      for (const doc of pending) count += await flush(collection, doc);
    }
    await writeMarks();
    return count;
  }

  return {
    async insert(collection, doc, events, requestId) {
      const withOutbox = { ...doc, _outbox: events, _outboxPending: events.length };
      await collection.insertOne(withOutbox);
      publishInBackground(collection, withOutbox, requestId);
    },
    async update(collection, filter, update, events, requestId) {
      const updated = await collection.findOneAndUpdate(filter, {
        ...update,
        $push: { ...update.$push, _outbox: { $each: events } },
        $inc: { ...update.$inc, _outboxPending: events.length },
      });
      if (updated && events.length > 0) publishInBackground(collection, updated, requestId);
      return updated;
    },
    async close() {
      await Promise.all(publishing);
      await writeMarks();
    },
    async relayOnce() {
      try {
        return await countLoopRun(options.metrics, 'outbox_relay', relayPass);
      } catch (error) {
        relayFailures?.inc();
        throw error;
      }
    },
  };
}

/** The index the relay finds unpublished events through; created at start for each collection. */
export async function ensureOutboxIndexes(collections: readonly OutboxCollection[]): Promise<void> {
  for (const collection of collections) await collection.ensureIndex({ fields: { _outboxPending: 1 } });
}

/**
 * `mmp_outbox_unpublished_events{collection}`: read at scrape time from the store, so
 * every replica reports the whole backlog, including a replica whose relay is not the one
 * catching up.
 */
function watchBacklog(registry: Registry, collections: readonly OutboxCollection[]) {
  gauge(
    registry,
    'mmp_outbox_unpublished_events',
    'Events written with their state change but not yet published (read at scrape; counted over at most 1000 documents per collection).',
    ['collection'],
    async function collect() {
      for (const collection of collections) {
        const pending = await collection.find({ _outboxPending: { $gt: 0 } }, { limit: 1000 });
        const events = pending.reduce((sum, doc) => sum + ((doc as OutboxFields)._outboxPending ?? 0), 0);
        this.set({ collection: collection.name }, events);
      }
    },
  );
}
