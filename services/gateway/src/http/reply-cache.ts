import { boundedCache, counter, type MetricsRegistry } from '@mmp/platform';
import type { ServiceReply } from '@mmp/protocol';

/** Replies held at most, so reading many resources cannot grow the cache without end. */
const KEPT_REPLIES_MAX = 5_000;

/** What a kept reply is for: a resource (`payment-changed:pay_…`) as an audience saw it. */
type Kept = { audience: string; reply: ServiceReply };

/** One read in flight; settled once, whatever its outcome. */
export type Asking = { settle(reply?: ServiceReply): void };

export type ReplyCache = {
  /** The reply kept for `resource` if `audience` (a project and environment) was answered it. */
  get(resource: string, audience: string): ServiceReply | undefined;
  /**
   * Before asking the owning service: a 200 reply settled is kept only if no change of
   * `resource` was heard since, so a read that raced a write never outlives it.
   */
  ask(resource: string, audience: string): Asking;
  /** A change heard: `*` (or a lost connection) drops every reply. */
  forget(resource: string): void;
};

/**
 * The merchant reads a service answers the same until the resource changes (a payment
 * polled while the payer confirms), kept at the edge: the owning service tells every
 * change (ServiceKit.notices), and `ttlMs` bounds how long a reply outlives a lost notice.
 */
export function createReplyCache(options: { ttlMs: number; registry: MetricsRegistry }): ReplyCache {
  const kept = boundedCache<string, Kept>({ max: KEPT_REPLIES_MAX, ttlMs: options.ttlMs });
  // The latest read of each resource in flight; a change heard removes it.
  const inFlight = new Map<string, Asking>();
  const reads = counter(
    options.registry,
    'mmp_gateway_kept_replies_total',
    'Merchant reads the gateway answered from a kept reply (hit) or asked the owning service (miss).',
    ['outcome'],
  );
  const hits = reads.labels({ outcome: 'hit' });
  const misses = reads.labels({ outcome: 'miss' });

  return {
    get(resource, audience) {
      const found = kept.get(resource);
      const reply = found?.audience === audience ? found.reply : undefined;
      (reply ? hits : misses).inc();
      return reply;
    },
    ask(resource, audience) {
      const asking: Asking = {
        settle(reply) {
          if (inFlight.get(resource) !== asking) return;
          inFlight.delete(resource);
          if (reply?.status === 200) kept.set(resource, { audience, reply });
        },
      };
      inFlight.set(resource, asking);
      return asking;
    },
    forget(resource) {
      if (resource === '*') {
        kept.clear();
        inFlight.clear();
        return;
      }
      kept.delete(resource);
      inFlight.delete(resource);
    },
  };
}
