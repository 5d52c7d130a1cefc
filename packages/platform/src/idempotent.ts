import { DuplicateKeyError, type Collection, type Doc } from './store/port.js';

type ProcessedEvent = Doc & { consumer: string; eventId: string; processedAt: Date };

/**
 * Remembers which events a consumer has processed, so a redelivered event (after a
 * crash, a nak, or a rebuild that replays the stream) changes nothing the second time.
 * The handler runs before the mark is written; handlers whose writes are not themselves
 * idempotent use compare-and-set guards so that a crash between the two is harmless.
 */
export function createIdempotentConsumer(collection: Collection<ProcessedEvent>, consumer: string) {
  return {
    async once(eventId: string, work: () => Promise<void>): Promise<'processed' | 'duplicate'> {
      const _id = `${consumer}:${eventId}`;
      if (await collection.findOne({ _id })) return 'duplicate';
      await work();
      try {
        await collection.insertOne({ _id, consumer, eventId, processedAt: new Date() });
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
      return 'processed';
    },
    async forget(): Promise<number> {
      return collection.deleteMany({ consumer });
    },
  };
}
export type IdempotentConsumer = ReturnType<typeof createIdempotentConsumer>;
