import { isAppError } from '@mmp/protocol';
import type { HandleResult, Logger, Outbox, ServiceClient } from '@mmp/platform';
import { backoffMs, checkEndpoint, judgeOrderExchange, type Verdict } from '../domain/classify.js';
import { expectedAckType, type DeliveryAttempt, type Order } from '../domain/order.js';
import type { Orders } from '../store/orders.js';
import type { ProviderHttp } from '../transport/signed-post.js';
import { outcomeEvent } from './outcome.js';

export type WebhookConfig = {
  timeoutMs: number;
  maxAttempts: number;
  backoffMs: number;
  allowHttpLoopback: boolean;
};

export type WebhookDeps = {
  orders: Orders;
  outbox: Outbox;
  http: ProviderHttp;
  services: ServiceClient;
  config: WebhookConfig;
  log: Logger;
};

type RailCredentials = { endpoint: string; secret: string };

/**
 * One step of a webhook delivery, run for every (re)delivery of `order.created`. The
 * attempt is claimed on the record (compare-and-set on status and attempt count) before
 * anything is sent, so an order already acked is never sent again, and a retry is a
 * JetStream redelivery with delay, which survives a restart. A crash between the send
 * and the record of its answer re-sends the same key: the provider's idempotency
 * (handler duty 6) turns that into a repeated ack, never a second execution.
 */
export async function deliverByWebhook(deps: WebhookDeps, order: Order): Promise<HandleResult> {
  const { orders, config } = deps;
  if (order.status !== 'PENDING') return;
  if (order.attemptCount >= config.maxAttempts) {
    const last = order.attempts.at(-1);
    return finish(deps, order, {
      classification: last?.classification ?? 'TIMEOUT',
      reason: last?.reason ?? 'the delivery was interrupted',
      transient: false,
      ack: null,
    });
  }
  const credentials = await fetchCredentials(deps, order);
  if ('failure' in credentials) return finish(deps, order, credentials.failure);
  const unsafe = checkEndpoint(credentials.endpoint, config.allowHttpLoopback);
  if (unsafe) return finish(deps, order, { classification: 'UNREACHABLE', reason: unsafe, transient: false, ack: null });

  const attempt = order.attemptCount + 1;
  const claimed = await orders.findOneAndUpdate(
    { _id: order._id, status: 'PENDING', attemptCount: order.attemptCount },
    { $set: { attemptCount: attempt, updatedAt: new Date() } },
  );
  // Someone else moved the record on; come back and look at it again rather than guess.
  if (!claimed) return { retryInMs: config.backoffMs };

  const exchange = await deps.http.post({
    endpoint: credentials.endpoint,
    secret: credentials.secret,
    event: order.payload.type === 'payout.execute' ? 'payout.execute' : 'payment.execute',
    body: JSON.stringify(order.payload),
    timeoutMs: config.timeoutMs,
  });
  const verdict = judgeOrderExchange(exchange, { type: expectedAckType(order), key: order.orderKey });
  const record: DeliveryAttempt = {
    attempt,
    at: new Date(),
    httpStatus: exchange.kind === 'response' ? exchange.httpStatus : null,
    latencyMs: exchange.latencyMs,
    classification: verdict.classification,
    reason: verdict.reason,
  };
  deps.log.info({ orderKey: order.orderKey, railId: order.railId, ...record }, 'order delivery attempt');
  if (verdict.transient && attempt < config.maxAttempts) {
    await orders.findOneAndUpdate({ _id: order._id, status: 'PENDING' }, { $push: { attempts: { $each: [record] } } });
    return { retryInMs: backoffMs(config.backoffMs, attempt) };
  }
  return finish(deps, { ...claimed, attemptCount: attempt }, verdict, record);
}

async function fetchCredentials(deps: WebhookDeps, order: Order): Promise<RailCredentials | { failure: Verdict }> {
  try {
    return await deps.services.command<RailCredentials>('provider-router', 'rails.credentials', { railId: order.railId });
  } catch (error) {
    // provider-router away: retry the event later, this is not the provider's fault.
    if (!isAppError(error) || error.code === 'service_unavailable') throw error;
    return { failure: { classification: 'UNREACHABLE', reason: `no credentials for the rail: ${error.message}`, transient: false, ack: null } };
  }
}

/** Records the final verdict and its delivery.* event in one write, guarded on PENDING. */
async function finish(deps: WebhookDeps, order: Order, verdict: Verdict, record?: DeliveryAttempt): Promise<HandleResult> {
  const accepted = verdict.classification === 'ACCEPTED' || verdict.classification === 'REJECTED';
  const updated = await deps.outbox.update(
    deps.orders,
    { _id: order._id, status: 'PENDING' },
    {
      $set: {
        status: accepted ? 'ACKED' : 'FAILED',
        outcome: verdict.classification,
        reason: verdict.reason,
        ack: verdict.ack,
        updatedAt: new Date(),
      },
      ...(record ? { $push: { attempts: { $each: [record] } } } : {}),
    },
    [outcomeEvent(order, verdict.classification, verdict.reason, order.attemptCount)],
  );
  if (!updated) deps.log.warn({ orderKey: order.orderKey, railId: order.railId }, 'order left PENDING before its delivery finished');
}
