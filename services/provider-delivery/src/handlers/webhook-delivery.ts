import { isAppError, providerEndpointRefusal, type DeliveryClassification } from '@mmp/protocol';
import {
  counter,
  type HandleResult,
  type Logger,
  type MetricsRegistry,
  type Outbox,
  type ServiceClient,
} from '@mmp/platform';
import { backoffMs, judgeOrderExchange, type Verdict } from '../domain/classify.js';
import {
  expectedAckType,
  inFlightAttempt,
  interruptedAttempt,
  type DeliveryAttempt,
  type Order,
} from '../domain/order.js';
import type { Orders } from '../store/orders.js';
import type { ProviderHttp } from '../transport/signed-post.js';
import { countOrderOutcome, outcomeEvent } from './outcome.js';

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
  metrics: MetricsRegistry;
};

/** Each POST of an order to a provider, by how it was judged (ACCEPTED, TIMEOUT, …). */
function countAttempt(metrics: MetricsRegistry, classification: DeliveryClassification) {
  counter(
    metrics,
    'mmp_order_delivery_attempts_total',
    'Webhook POSTs of orders to providers, by classification.',
    ['classification'],
  ).inc({ classification });
}

type RailCredentials = { endpoint: string; secret: string };

/**
 * One step of a webhook delivery, run for every (re)delivery of `order.created`. The
 * attempt is claimed and stored as IN_FLIGHT on the record (compare-and-set on status and
 * attempt count) before anything is sent, so an order already acked is never sent again,
 * and a crash mid-POST leaves a visible attempt, which the next delivery of the event
 * records as INTERRUPTED before it sends the same key again (the provider's idempotency,
 * handler duty 6, turns that into a repeated ack, never a second execution). A retry is a
 * JetStream redelivery with delay, which survives a restart.
 */
export async function deliverByWebhook(deps: WebhookDeps, order: Order): Promise<HandleResult> {
  const { orders, config } = deps;
  if (order.status !== 'PENDING') return;
  // Still in flight when the event comes again: the process that sent it died.
  const interrupted = order.inFlight ? [interruptedAttempt(order.inFlight)] : [];
  if (order.attemptCount >= config.maxAttempts) {
    const last = [...order.attempts, ...interrupted].at(-1);
    return finish(
      deps,
      order,
      {
        classification: outcomeClassification(last),
        reason: last?.reason ?? 'the delivery was interrupted',
        transient: false,
        ack: null,
      },
      interrupted,
    );
  }
  const credentials = await fetchCredentials(deps, order);
  if ('failure' in credentials) return finish(deps, order, credentials.failure, interrupted);
  const unsafe = providerEndpointRefusal(credentials.endpoint, config.allowHttpLoopback);
  if (unsafe)
    return finish(
      deps,
      order,
      { classification: 'UNREACHABLE', reason: unsafe, transient: false, ack: null },
      interrupted,
    );

  const attempt = order.attemptCount + 1;
  const sent = inFlightAttempt(attempt, new Date());
  const claimed = await orders.findOneAndUpdate(
    { _id: order._id, status: 'PENDING', attemptCount: order.attemptCount },
    {
      $set: { attemptCount: attempt, inFlight: sent, updatedAt: sent.at },
      ...(interrupted.length > 0 ? { $push: { attempts: { $each: interrupted } } } : {}),
    },
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
    ...sent,
    httpStatus: exchange.kind === 'response' ? exchange.httpStatus : null,
    latencyMs: exchange.latencyMs,
    classification: verdict.classification,
    reason: verdict.reason,
  };
  deps.log.info({ orderKey: order.orderKey, railId: order.railId, ...record }, 'order delivery attempt');
  countAttempt(deps.metrics, verdict.classification);
  if (verdict.transient && attempt < config.maxAttempts) {
    await orders.findOneAndUpdate(
      { _id: order._id, status: 'PENDING', attemptCount: attempt },
      { $set: { inFlight: null }, $push: { attempts: { $each: [record] } } },
    );
    return { retryInMs: backoffMs(config.backoffMs, attempt) };
  }
  return finish(deps, claimed, verdict, [record]);
}

/** The delivery classification an order ends with when its last attempt got no answer. */
function outcomeClassification(last: DeliveryAttempt | undefined): DeliveryClassification {
  if (!last || last.classification === 'IN_FLIGHT' || last.classification === 'INTERRUPTED') return 'TIMEOUT';
  return last.classification;
}

async function fetchCredentials(
  deps: WebhookDeps,
  order: Order,
): Promise<RailCredentials | { failure: Verdict }> {
  try {
    return await deps.services.command<RailCredentials>('provider-router', 'rails.credentials', {
      railId: order.railId,
    });
  } catch (error) {
    // provider-router away: retry the event later, this is not the provider's fault.
    if (!isAppError(error) || error.code === 'service_unavailable') throw error;
    return {
      failure: {
        classification: 'UNREACHABLE',
        reason: `no credentials for the rail: ${error.message}`,
        transient: false,
        ack: null,
      },
    };
  }
}

/** Records the final verdict, its last attempts and its delivery.* event in one write, guarded on PENDING. */
async function finish(
  deps: WebhookDeps,
  order: Order,
  verdict: Verdict,
  records: DeliveryAttempt[],
): Promise<HandleResult> {
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
        inFlight: null,
        updatedAt: new Date(),
      },
      ...(records.length > 0 ? { $push: { attempts: { $each: records } } } : {}),
    },
    [outcomeEvent(order, verdict.classification, verdict.reason, order.attemptCount)],
  );
  if (updated) countOrderOutcome(deps.metrics, verdict.classification);
  else
    deps.log.warn(
      { orderKey: order.orderKey, railId: order.railId },
      'order left PENDING before its delivery finished',
    );
}
