import { createHash } from 'node:crypto';
import { DuplicateKeyError, type Collection } from '@mmp/platform';
import { appError, type ServiceReply } from '@mmp/protocol';

export type IdempotencyRecord = {
  _id: string;
  requestHash: string;
  state: 'pending' | 'done';
  status?: number;
  body?: unknown;
  /** A Date, so the store's TTL index removes the record after 24 hours. */
  createdAt: Date;
  claimedAt: string;
};

const LIFETIME_MS = 24 * 3600 * 1000;

export type IdempotencyScope = { operation: string; projectId: string; livemode: boolean };

/**
 * What the handler does under a claimed key. `recovering` is true when a previous holder of
 * the key crashed mid-request: the work must then look for what that holder wrote.
 */
export type IdempotentWork = (idempotencyId: string | null, recovering: boolean) => Promise<ServiceReply>;

/**
 * Idempotency-Key handling: the key is claimed with a unique insert before any work, so two
 * concurrent requests never both do the work; the second waits for the first's response
 * (up to `waitMs`) and replays it, or gets 409 if the first is still running.
 */
export function createIdempotency(collection: Collection<IdempotencyRecord>, options: { waitMs: number; staleMs: number }) {
  async function finish(id: string, work: IdempotentWork, recovering: boolean): Promise<ServiceReply> {
    let reply: ServiceReply;
    try {
      reply = await work(id, recovering);
    } catch (error) {
      // Failed requests leave nothing behind, so the client may retry with the same key.
      await collection.deleteMany({ _id: id, state: 'pending' });
      throw error;
    }
    await collection.findOneAndUpdate({ _id: id }, { $set: { state: 'done', status: reply.status, body: reply.body } });
    return reply;
  }

  async function claim(id: string, requestHash: string): Promise<boolean> {
    try {
      await collection.insertOne({ _id: id, requestHash, state: 'pending', createdAt: new Date(), claimedAt: new Date().toISOString() });
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  return {
    async run(scope: IdempotencyScope, key: string | undefined, payload: unknown, work: IdempotentWork): Promise<ServiceReply> {
      if (key === undefined) return work(null, false);
      if (key.length === 0 || key.length > 255) {
        throw appError('invalid_request', 'The Idempotency-Key header must be 1 to 255 characters long.');
      }
      const id = `${scope.operation}:${scope.projectId}:${scope.livemode ? 'live' : 'test'}:${key}`;
      const requestHash = hashPayload(payload);
      const deadline = Date.now() + options.waitMs;
      for (;;) {
        if (await claim(id, requestHash)) return finish(id, work, false);
        const record = await collection.findOne({ _id: id });
        if (!record) continue;
        if (Date.now() - new Date(record.createdAt).getTime() > LIFETIME_MS) {
          // The TTL monitor runs about once a minute; an expired key is free to reuse now.
          await collection.deleteMany({ _id: id, claimedAt: record.claimedAt });
          continue;
        }
        if (record.requestHash !== requestHash) {
          throw appError('idempotency_conflict', 'This Idempotency-Key was already used with a different request body.');
        }
        if (record.state === 'done') {
          return { status: record.status ?? 200, body: record.body, headers: { 'Idempotent-Replayed': 'true' } };
        }
        if (Date.now() - new Date(record.claimedAt).getTime() > options.staleMs) {
          const taken = await collection.findOneAndUpdate(
            { _id: id, state: 'pending', claimedAt: record.claimedAt },
            { $set: { claimedAt: new Date().toISOString() } },
          );
          if (taken) return finish(id, work, true);
        }
        if (Date.now() > deadline) {
          throw appError('idempotency_conflict', 'A request with this Idempotency-Key is still being processed; retry shortly.');
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}
export type Idempotency = ReturnType<typeof createIdempotency>;

function hashPayload(payload: unknown): string {
  return createHash('sha256').update(stableJson(payload)).digest('hex');
}

/** JSON with object keys sorted, so the same body in another key order is the same request. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
