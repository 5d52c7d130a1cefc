import { PullOrder, PullOrdersResponse, type OrderAck } from '@mmp/protocol';
import { SERVICE_CALL_TIMEOUT_MS } from './base-url.js';
import { callServiceApi, type ServiceApiOptions } from './service-api.js';

export type PullOrdersOptions = {
  /**
   * A long poll: with no order to return, the service waits up to this long (at most
   * 20,000 ms) and answers as soon as one arrives, or with none.
   */
  waitMs?: number;
};

export type PullClient = {
  /** Orders not yet acked (pending or DELIVERED), oldest first; `limit` 1 to 100, default 50. */
  pending(limit?: number, options?: PullOrdersOptions): Promise<PullOrder[]>;
  /** Acks with the exact payment.ack or payout.ack; returns the stored ack. */
  ack(ack: OrderAck): Promise<OrderAck>;
  get(idempotencyKey: string): Promise<PullOrder>;
};

/** The pull transport as a provider uses it: its `sk_` key as Bearer; baseUrl with or without /v1. */
export function createPullClient(options: ServiceApiOptions): PullClient {
  return {
    async pending(limit, { waitMs = 0 } = {}) {
      const query = new URLSearchParams({ status: 'pending' });
      if (limit !== undefined) query.set('limit', String(limit));
      if (waitMs > 0) query.set('wait_ms', String(waitMs));
      // The call's own deadline starts after the wait it asked for.
      const call =
        waitMs > 0
          ? { ...options, timeoutMs: (options.timeoutMs ?? SERVICE_CALL_TIMEOUT_MS) + waitMs }
          : options;
      return PullOrdersResponse.parse(await callServiceApi(call, 'GET', `/provider/orders?${query}`)).orders;
    },
    async ack(ack) {
      return callServiceApi<OrderAck>(
        options,
        'POST',
        `/provider/orders/${encodeURIComponent(ack.idempotency_key)}/ack`,
        ack,
      );
    },
    async get(idempotencyKey) {
      return PullOrder.parse(
        await callServiceApi(options, 'GET', `/provider/orders/${encodeURIComponent(idempotencyKey)}`),
      );
    },
  };
}
