import { createHash, randomUUID } from 'node:crypto';
import { appError } from '@mmp/protocol';
import { DuplicateKeyError, type Collection, type IndexSpec } from './store/port.js';

/** How long a key holds its answer, as the specification promises. */
export const IDEMPOTENCY_LIFETIME_MS = 24 * 3600 * 1000;

export type IdempotencyRecord<R> = {
  _id: string;
  requestHash: string;
  state: 'pending' | 'done';
  result?: R;
  /** A Date, so the store's TTL index removes the record after its lifetime. */
  createdAt: Date;
  claimedAt: string;
  /** The process holding a pending key, for the logs of a takeover. */
  holder?: string;
  /** A pending key is its holder's until then; the holder pushes it on while it works. */
  leaseUntil?: string;
};

/** This process, as the holder of the keys it claims; a restarted process is another holder. */
export const INSTANCE_ID = randomUUID();

/**
 * The outcome of asking for a key: either its stored answer, or the right to do the work
 * (then `complete` stores the answer, `release` frees the key for a retry). `recovering`
 * is true when a previous holder crashed mid-request: the work should look for what it wrote.
 */
export type IdempotencyClaim<R> =
  | { replay: R }
  | { replay?: undefined; recovering: boolean; complete(result: R): Promise<void>; release(): Promise<void> };

/** Validates the header's value: 1 to 255 characters, as common practice for such keys. */
export function checkIdempotencyKey(key: string): string {
  if (key.length === 0 || key.length > 255) {
    throw appError('invalid_request', 'The Idempotency-Key header must be 1 to 255 characters long.');
  }
  return key;
}

/**
 * Idempotency-Key handling over a store collection: the key is claimed with a unique insert
 * before any work, so two concurrent requests never both do it; the second waits for the
 * first's answer and replays it. A claim is a lease of `staleMs` that its holder renews
 * while it works, so a waiter keeps waiting (up to `waitMs`, then 409) behind a live holder,
 * and takes the key over as soon as the lease of a dead one (a crash) has run out.
 */
export function createIdempotencyKeys<R>(
  collection: Collection<IdempotencyRecord<R>>,
  options: { waitMs: number; staleMs: number; now?: () => Date },
) {
  const now = options.now ?? (() => new Date());
  const leaseEnd = () => new Date(now().getTime() + options.staleMs).toISOString();

  function held(id: string, claimedAt: string, recovering: boolean): IdempotencyClaim<R> {
    // Renewed three times a lease, so one late renewal never lets a waiter take a live claim.
    const renewal = setInterval(
      () => {
        collection
          .findOneAndUpdate({ _id: id, state: 'pending', claimedAt }, { $set: { leaseUntil: leaseEnd() } })
          .catch(() => undefined);
      },
      Math.max(10, Math.floor(options.staleMs / 3)),
    );
    renewal.unref();
    return {
      recovering,
      async complete(result: R) {
        clearInterval(renewal);
        await collection.findOneAndUpdate(
          { _id: id, claimedAt },
          { $set: { state: 'done', result } as Record<string, unknown> },
        );
      },
      async release() {
        clearInterval(renewal);
        await collection.deleteMany({ _id: id, state: 'pending', claimedAt });
      },
    };
  }

  async function insert(id: string, requestHash: string): Promise<string | null> {
    const claimedAt = now().toISOString();
    try {
      await collection.insertOne({
        _id: id,
        requestHash,
        state: 'pending',
        createdAt: now(),
        claimedAt,
        holder: INSTANCE_ID,
        leaseUntil: leaseEnd(),
      });
      return claimedAt;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return null;
      throw error;
    }
  }

  /** Records from before leases carry none: theirs ends `staleMs` after the claim. */
  const leaseOf = (record: IdempotencyRecord<R>) =>
    record.leaseUntil ? Date.parse(record.leaseUntil) : Date.parse(record.claimedAt) + options.staleMs;

  return {
    async claim(id: string, requestHash: string): Promise<IdempotencyClaim<R>> {
      // The wait is real time; lifetimes and leases follow the injected clock.
      const deadline = Date.now() + options.waitMs;
      for (;;) {
        const claimedAt = await insert(id, requestHash);
        if (claimedAt) return held(id, claimedAt, false);
        const record = await collection.findOne({ _id: id });
        if (!record) continue;
        const expired = now().getTime() - new Date(record.createdAt).getTime() > IDEMPOTENCY_LIFETIME_MS;
        if (expired) {
          // TTL removal is eventual; an expired key is free now.
          await collection.deleteMany({ _id: id, claimedAt: record.claimedAt });
          continue;
        }
        if (record.requestHash !== requestHash) {
          throw appError(
            'idempotency_conflict',
            'This Idempotency-Key was already used with a different request.',
          );
        }
        if (record.state === 'done') return { replay: record.result as R };
        if (now().getTime() > leaseOf(record)) {
          const claimedAt = now().toISOString();
          // The lease read is part of the guard: a renewal in between keeps the key its holder's.
          const taken = await collection.findOneAndUpdate(
            {
              _id: id,
              state: 'pending',
              claimedAt: record.claimedAt,
              ...(record.leaseUntil ? { leaseUntil: record.leaseUntil } : {}),
            },
            { $set: { claimedAt, holder: INSTANCE_ID, leaseUntil: leaseEnd() } },
          );
          if (taken) return held(id, claimedAt, true);
        }
        if (Date.now() > deadline) {
          throw appError(
            'idempotency_conflict',
            'A request with this Idempotency-Key is still being processed; retry shortly.',
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}
export type IdempotencyKeys<R> = ReturnType<typeof createIdempotencyKeys<R>>;

/** Keys expire with their lifetime. */
export const IDEMPOTENCY_INDEX: IndexSpec = {
  fields: { createdAt: 1 },
  expireAfterSeconds: IDEMPOTENCY_LIFETIME_MS / 1000,
};

export async function ensureIdempotencyIndex<R>(collection: Collection<IdempotencyRecord<R>>) {
  await collection.ensureIndex(IDEMPOTENCY_INDEX);
}

/** A digest of a request: JSON with object keys sorted, so key order does not matter. */
export function requestHash(payload: unknown): string {
  return createHash('sha256').update(stableJson(payload)).digest('hex');
}

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
