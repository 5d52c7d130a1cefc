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
 * The key a request's work runs under: its id (null without an Idempotency-Key), and whether
 * a previous holder of the key crashed mid-request, so the work must look for what it wrote.
 */
export type ClaimedKey = { idempotencyId: string | null; recovering: boolean };

export type IdempotentWork = (key: ClaimedKey) => Promise<ServiceReply>;

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
      if (key === undefined) return work({ idempotencyId: null, recovering: false });
      const id = `${scope.operation}:${scope.projectId}:${scope.livemode ? 'live' : 'test'}:${checkIdempotencyKey(key)}`;
      const claim = await keys.claim(id, requestHash(payload));
      if (claim.replay) {
        return { ...claim.replay, headers: { 'Idempotent-Replayed': 'true' } };
      }
      let reply: ServiceReply;
      try {
        reply = await work({ idempotencyId: id, recovering: claim.recovering });
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
