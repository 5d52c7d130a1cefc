import type { Registry } from 'prom-client';
import type { Collection, Doc, Filter, Update } from './store/port.js';
import type { EventPublisher, PendingEvent } from './events.js';
import type { Logger } from './logger.js';
import { startLoop, type Loop } from './loops.js';
import { countLoopRun, counter, gauge } from './metrics.js';

/**
 * The outbox lives inside the aggregate's own document: a state change and its events are
 * one single-document write, atomic in MongoDB and in the embedded store alike, with no
 * transaction. A document with `_outboxPending > 0` has events still to publish; the
 * relay finds them through an index and publishes them with their id as `Nats-Msg-Id`.
 */
export type OutboxFields = { _outbox?: PendingEvent[]; _outboxPending?: number };

export type Outbox = {
  /** Inserts a new aggregate together with its events, then publishes them. */
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
  /** Publishes whatever a crash left unpublished in the registered collections. */
  relayOnce(): Promise<number>;
  start(intervalMs?: number): void;
  stop(): Promise<void>;
};

export function createOutbox(options: {
  publish: EventPublisher;
  log: Logger;
  /** Collections holding aggregates with outboxes; the relay scans these. */
  collections: Collection<Doc>[];
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
  let relay: Loop | undefined;

  async function flush<T extends Doc>(collection: Collection<T>, doc: T & OutboxFields, requestId?: string) {
    const events = doc._outbox ?? [];
    if (events.length === 0) return;
    for (const event of events) {
      await publish(event, requestId);
      // Guarded on the event still being there, so a relay pass and a request flushing the
      // same document concurrently decrement the counter once.
      await collection.findOneAndUpdate(
        { _id: doc._id, '_outbox.id': event.id },
        { $pull: { _outbox: { id: event.id } }, $inc: { _outboxPending: -1 } },
      );
    }
  }

  async function flushQuietly<T extends Doc>(collection: Collection<T>, doc: T, requestId?: string) {
    // The write is durable already; if publishing fails now the relay publishes later.
    await flush(collection, doc, requestId).catch((error) =>
      log.warn({ err: error, collection: collection.name, id: doc._id }, 'event publish deferred to relay'),
    );
  }

  async function relayPass(): Promise<number> {
    let count = 0;
    for (const collection of options.collections) {
      const pending = await collection.find({ _outboxPending: { $gt: 0 } }, { limit: 200 });
      for (const doc of pending) {
        await flush(collection, doc as Doc & OutboxFields);
        count += (doc as OutboxFields)._outbox?.length ?? 0;
      }
    }
    return count;
  }

  async function relayOnce(): Promise<number> {
    try {
      return await countLoopRun(options.metrics, 'outbox_relay', relayPass);
    } catch (error) {
      relayFailures?.inc();
      throw error;
    }
  }

  return {
    async insert(collection, doc, events, requestId) {
      const withOutbox = { ...doc, _outbox: events, _outboxPending: events.length };
      await collection.insertOne(withOutbox);
      await flushQuietly(collection, withOutbox, requestId);
    },
    async update(collection, filter, update, events, requestId) {
      const updated = await collection.findOneAndUpdate(filter, {
        ...update,
        $push: { ...update.$push, _outbox: { $each: events } },
        $inc: { ...update.$inc, _outboxPending: events.length },
      });
      if (updated && events.length > 0) await flushQuietly(collection, updated, requestId);
      return updated;
    },
    relayOnce,
    start(intervalMs = 2000) {
      // No metrics for the loop: relayOnce counts its own passes, failures included.
      relay = startLoop({ name: 'outbox_relay', intervalMs, log, pass: relayOnce });
    },
    async stop() {
      await relay?.stop();
    },
  };
}

// Scraped rather than updated by the relay, so the number is right between passes and on
// a replica whose relay is not the one catching up.
const backlogSources = new WeakMap<Registry, Collection<Doc>[]>();

function watchBacklog(registry: Registry, collections: Collection<Doc>[]) {
  const known = backlogSources.get(registry) ?? [];
  backlogSources.set(registry, [...known, ...collections]);
  gauge(
    registry,
    'mmp_outbox_unpublished_events',
    'Events written with their state change but not yet published (read at scrape; counted over at most 1000 documents per collection).',
    ['collection'],
    async function collect() {
      for (const collection of backlogSources.get(registry) ?? []) {
        const pending = await collection.find({ _outboxPending: { $gt: 0 } }, { limit: 1000 });
        const events = pending.reduce((sum, doc) => sum + ((doc as OutboxFields)._outboxPending ?? 0), 0);
        this.set({ collection: collection.name }, events);
      }
    },
  );
}

/** Indexes the relay relies on; call once per aggregate collection at start. */
export async function ensureOutboxIndex(collection: Collection<Doc>): Promise<void> {
  await collection.ensureIndex({ fields: { _outboxPending: 1 } });
}
