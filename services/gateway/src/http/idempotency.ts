import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  checkIdempotencyKey,
  idempotencyCallerOf,
  requestHash,
  type IdempotencyClaim,
  type IdempotencyKeys,
  type SecretBox,
} from '@mmp/platform';

/**
 * What a key remembers of the first answer: enough to send it again byte for byte. The body
 * is sealed, since some answers show a key or secret once (project create, roll, endpoints).
 */
export type RememberedReply = { status: number; contentType: string | null; sealedBody: string };

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim?: Exclude<IdempotencyClaim<RememberedReply>, { replay: RememberedReply }>;
  }
}

/**
 * `Idempotency-Key` on every POST, as the specification promises: the first answer below
 * 400 is kept for 24 h and replayed (with `Idempotent-Replayed: true`) to the same caller
 * sending the same key with the same request; the same key with another request is 409
 * `idempotency_conflict`. Errors are not kept, so a corrected retry may reuse its key.
 * Services that create money-moving objects keep their own key too (payments does), so a
 * retry after a gateway crash mid-request still never makes a second one.
 */
export const idempotencyPlugin = fp<{ keys: IdempotencyKeys<RememberedReply>; box: SecretBox }>(
  async (app, { keys, box }) => {
    app.decorateRequest('idempotencyClaim', undefined);

    /** Claims the caller's key; true when the answer kept for it was sent instead. */
    async function claimKey(
      request: FastifyRequest,
      reply: FastifyReply,
      caller: string,
      header: string | string[],
    ) {
      const key = checkIdempotencyKey(Array.isArray(header) ? header.join(',') : header);
      const claim = await keys.claim(
        `${caller}:${key}`,
        requestHash({ url: request.url, body: request.body ?? null }),
      );
      if (!claim.replay) {
        request.idempotencyClaim = claim;
        return false;
      }
      const { status, contentType, sealedBody } = claim.replay;
      if (contentType) reply.type(contentType);
      reply.code(status).header('idempotent-replayed', 'true').send(box.open(sealedBody));
      return true;
    }

    async function settle(
      claim: NonNullable<FastifyRequest['idempotencyClaim']>,
      reply: FastifyReply,
      payload: unknown,
    ) {
      if (reply.statusCode < 400 && (typeof payload === 'string' || payload === null)) {
        const contentType = reply.getHeader('content-type');
        await claim.complete({
          status: reply.statusCode,
          contentType: typeof contentType === 'string' ? contentType : null,
          sealedBody: box.seal(payload ?? ''),
        });
      } else {
        await claim.release();
      }
    }

    // Callback hooks: most requests carry no key, and pass without waiting on a promise.
    app.addHook('preHandler', (request, reply, done) => {
      const header = request.headers['idempotency-key'];
      // Signed raw-body routes (settlements) de-duplicate by the payload's own idempotency_key;
      // an unknown route has no caller to key by.
      const signed = request.routeOptions.config?.rawBody === true;
      if (request.method !== 'POST' || header === undefined || signed || !request.actor) return done();
      claimKey(request, reply, idempotencyCallerOf(request.actor), header).then((replayed) => {
        if (!replayed) done();
      }, done);
    });

    app.addHook('onSend', (request, reply, payload, done) => {
      const claim = request.idempotencyClaim;
      if (!claim) return done(null, payload);
      request.idempotencyClaim = undefined;
      settle(claim, reply, payload).then(() => done(null, payload), done);
    });
  },
  // It keys by the caller the guard identified.
  { name: 'mmp-idempotency', fastify: '5.x', dependencies: ['mmp-guard'] },
);
