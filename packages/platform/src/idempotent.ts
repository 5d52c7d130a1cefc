import { DuplicateKeyError, type Collection, type Doc } from './store/port.js';

type ProcessedEvent = Doc & { consumer: string; eventId: string; processedAt: Date };

/** How long a consumer remembers an event it processed: far past any redelivery. */
export const PROCESSED_EVENT_LIFETIME_S = 7 * 24 * 3600;

/**
 * Remembers which events a consumer has processed, so a redelivered event (after a crash,
 * a nak, an ack that was lost) changes nothing the second time. The handler runs before the
 * mark is written; handlers whose writes are not themselves idempotent use compare-and-set
 * guards so that a crash between the two is harmless. A handler asking for a retry leaves
 * no mark.
 */
export function createIdempotentConsumer(collection: Collection<ProcessedEvent>, consumer: string) {
  return {
    async ensureIndexes(): Promise<void> {
      await collection.ensureIndex({
        fields: { processedAt: 1 },
        expireAfterSeconds: PROCESSED_EVENT_LIFETIME_S,
      });
    },
    async once<R>(eventId: string, work: () => Promise<R>): Promise<R | undefined> {
      const _id = `${consumer}:${eventId}`;
      if (await collection.findOne({ _id })) return undefined;
      const result = await work();
      if (result && typeof result === 'object' && 'retryInMs' in result) return result;
      try {
        await collection.insertOne({ _id, consumer, eventId, processedAt: new Date() });
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
      return result;
    },
    async forget(): Promise<number> {
      return collection.deleteMany({ consumer });
    },
  };
}
export type IdempotentConsumer = ReturnType<typeof createIdempotentConsumer>;
