import {
  checkIdempotencyKey,
  createIdempotencyKeys,
  requestHash,
  type Collection,
  type IdempotencyRecord,
} from '@mmp/platform';
import type { ServiceReply } from '@mmp/protocol';

/** What a key keeps of the first answer: the reply itself (payments show no secrets). */
export type KeptReply = Pick<ServiceReply, 'status' | 'body'>;
export type PaymentsIdempotencyRecord = IdempotencyRecord<KeptReply>;

export type IdempotencyScope = { operation: string; projectId: string; livemode: boolean };

/**
 * What the handler does under a claimed key. `recovering` is true when a previous holder of
 * the key crashed mid-request: the work must then look for what that holder wrote.
 */
export type IdempotentWork = (idempotencyId: string | null, recovering: boolean) => Promise<ServiceReply>;

/**
 * The payments service's own Idempotency-Key, under the gateway's: the key's id is stored on
 * the payment it made, so a retry after a crash finds that payment instead of making another.
 */
export function createIdempotency(
  collection: Collection<PaymentsIdempotencyRecord>,
  options: { waitMs: number; staleMs: number; now: () => Date },
) {
  const keys = createIdempotencyKeys<KeptReply>(collection, options);
  return {
    async run(
      scope: IdempotencyScope,
      key: string | undefined,
      payload: unknown,
      work: IdempotentWork,
    ): Promise<ServiceReply> {
      if (key === undefined) return work(null, false);
      const id = `${scope.operation}:${scope.projectId}:${scope.livemode ? 'live' : 'test'}:${checkIdempotencyKey(key)}`;
      const claim = await keys.claim(id, requestHash(payload));
      if (claim.replay) {
        return { ...claim.replay, headers: { 'Idempotent-Replayed': 'true' } };
      }
      let reply: ServiceReply;
      try {
        reply = await work(id, claim.recovering);
      } catch (error) {
        // Failed requests leave nothing behind, so the client may retry with the same key.
        await claim.release();
        throw error;
      }
      await claim.complete({ status: reply.status, body: reply.body });
      return reply;
    },
  };
}
export type Idempotency = ReturnType<typeof createIdempotency>;
