import { PullOrder, PullOrdersResponse, type OrderAck } from '@mmp/protocol';
import { callServiceApi, type ServiceApiOptions } from './service-api.js';

export type PullClient = {
  /** Orders not yet acked (pending or DELIVERED), oldest first; `limit` 1 to 100, default 50. */
  pending(limit?: number): Promise<PullOrder[]>;
  /** Acks with the exact payment.ack or payout.ack; returns the stored ack. */
  ack(ack: OrderAck): Promise<OrderAck>;
  get(idempotencyKey: string): Promise<PullOrder>;
};

/** The pull transport as a provider uses it: its `sk_` key as Bearer; baseUrl with or without /v1. */
export function createPullClient(options: ServiceApiOptions): PullClient {
  return {
    async pending(limit) {
      const query = limit === undefined ? 'status=pending' : `status=pending&limit=${limit}`;
      return PullOrdersResponse.parse(await callServiceApi(options, 'GET', `/provider/orders?${query}`))
        .orders;
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
