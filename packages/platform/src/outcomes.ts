import { appError, type Actor, type ServiceReply, type ServiceRequest } from '@mmp/protocol';
import {
  checkIdempotencyKey,
  createIdempotencyKeys,
  ensureIdempotencyIndex,
  requestHash,
  type IdempotencyRecord,
} from './idempotency.js';
import type { SecretBox } from './secrets.js';
import type { Collection } from './store/port.js';

/** A kept reply, sealed when the service has a server key (some replies show a secret once). */
export type KeptOutcome = { reply: string; sealed: boolean };
export type OutcomeRecord = IdempotencyRecord<KeptOutcome>;

/**
 * A lease short enough that a crashed holder's key is free within seconds, and a wait that
 * outlasts it, both under the gateway's request timeout (5 s by default) so the waiter still
 * answers the gateway in time.
 */
export const OUTCOME_LEASE_MS = 2000;
export const OUTCOME_WAIT_MS = 2500;

/**
 * Whose an Idempotency-Key is: per caller and environment, so one merchant's key never
 * replays another's answer. The gateway and the services key alike.
 */
export function idempotencyCallerOf(actor: Actor): string {
  switch (actor.kind) {
    case 'merchant':
      return `merchant:${actor.projectId}:${actor.livemode ? 'live' : 'test'}`;
    case 'provider':
      return `provider:${actor.providerId}`;
    case 'service':
      return `service:${actor.service}`;
    default:
      return actor.kind;
  }
}

/**
 * The first outcome of every HTTP operation called with an Idempotency-Key, kept by the
 * service that performs it: the gateway keeps answers too, but only those it received, so a
 * reply lost on the way back (a gateway crash, a NATS outage, a timeout) left a retry to run
 * the operation again and meet its own effect ("already paid"). Kept here, once the work
 * took effect, the retry gets that first answer again. Errors are not kept.
 */
export function createOperationOutcomes(
  collection: Collection<OutcomeRecord>,
  options: { box?: SecretBox; leaseMs?: number; waitMs?: number } = {},
) {
  const keys = createIdempotencyKeys<KeptOutcome>(collection, {
    staleMs: options.leaseMs ?? OUTCOME_LEASE_MS,
    waitMs: options.waitMs ?? OUTCOME_WAIT_MS,
  });
  const { box } = options;
  const keep = (reply: ServiceReply): KeptOutcome => {
    const json = JSON.stringify(reply);
    return box ? { reply: box.seal(json), sealed: true } : { reply: json, sealed: false };
  };
  /**
   * A kept reply sealed under another server key (rotated, or removed) cannot be opened: the
   * first answer is lost to this key, so the retry is told to use a new one, never a 500.
   */
  const open = (kept: KeptOutcome): ServiceReply => {
    try {
      if (kept.sealed && !box) throw new Error('sealed without a server key');
      return JSON.parse(kept.sealed ? box!.open(kept.reply) : kept.reply) as ServiceReply;
    } catch {
      throw appError(
        'idempotency_conflict',
        'The first answer to this Idempotency-Key can no longer be read (the server key changed); send the request with a new key.',
      );
    }
  };

  return {
    ensureIndexes: () => ensureIdempotencyIndex(collection),
    async run(
      operation: string,
      actor: Actor,
      request: ServiceRequest,
      work: () => Promise<ServiceReply>,
    ): Promise<ServiceReply> {
      const header = request.headers['idempotency-key'];
      if (header === undefined) return work();
      const id = `${operation}:${idempotencyCallerOf(actor)}:${checkIdempotencyKey(header)}`;
      const claim = await keys.claim(
        id,
        requestHash({ params: request.params, query: request.query, body: request.body ?? null }),
      );
      if (claim.replay) {
        const first = open(claim.replay);
        return { ...first, headers: { ...first.headers, 'Idempotent-Replayed': 'true' } };
      }
      let reply: ServiceReply;
      try {
        reply = await work();
      } catch (error) {
        await claim.release();
        throw error;
      }
      if (reply.status < 400) await claim.complete(keep(reply));
      else await claim.release();
      return reply;
    },
  };
}
export type OperationOutcomes = ReturnType<typeof createOperationOutcomes>;
