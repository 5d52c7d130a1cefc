import { request } from 'undici';
import { PullOrder, PullOrdersResponse, type OrderAck } from '@mmp/protocol';
import { apiBase } from './base-url.js';
import { parseMaybe } from './settlement.js';

/** A non-2xx answer of the service, with the envelope's code when there is one. */
export class ServiceCallError extends Error {
  override readonly name = 'ServiceCallError';
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export type PullClient = {
  /** Orders not yet acked (pending or DELIVERED), oldest first; `limit` 1 to 100, default 50. */
  pending(limit?: number): Promise<PullOrder[]>;
  /** Acks with the exact payment.ack or payout.ack; returns the stored ack. */
  ack(ack: OrderAck): Promise<OrderAck>;
  get(idempotencyKey: string): Promise<PullOrder>;
};

/** The pull transport as a provider uses it: its `sk_` key as Bearer; baseUrl with or without /v1. */
export function createPullClient(options: {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
}): PullClient {
  const base = apiBase(options.baseUrl);
  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const response = await request(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const parsed = parseMaybe(await response.body.text());
    if (response.statusCode >= 200 && response.statusCode < 300) return parsed;
    const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ServiceCallError(
      response.statusCode,
      error?.code ?? null,
      error?.message ?? `HTTP ${response.statusCode}`,
      parsed,
    );
  }
  return {
    async pending(limit) {
      const query = limit === undefined ? 'status=pending' : `status=pending&limit=${limit}`;
      return PullOrdersResponse.parse(await call('GET', `/provider/orders?${query}`)).orders;
    },
    async ack(ack) {
      return (await call(
        'POST',
        `/provider/orders/${encodeURIComponent(ack.idempotency_key)}/ack`,
        ack,
      )) as OrderAck;
    },
    async get(idempotencyKey) {
      return PullOrder.parse(await call('GET', `/provider/orders/${encodeURIComponent(idempotencyKey)}`));
    },
  };
}
