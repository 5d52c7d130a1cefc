import { backoffDelay, postToProvider, type HandleResult } from '@mmp/platform';
import { isAppError, routerQueries, type DeliveryClassification, type RailCredentials } from '@mmp/protocol';
import { judgeOrderExchange, type Verdict } from '../domain/classify.js';
import {
  expectedAckType,
  inFlightAttempt,
  interruptedAttempt,
  outcomeEvent,
  type DeliveryAttempt,
  type Order,
} from '../domain/order.js';
import { claimAttempt, finishDelivery, recordRetriedAttempt } from '../store/orders.js';
import { countAttempt, countOrderOutcome, type DeliveryDeps } from './deps.js';

type Target = { endpoint: string; secret: string };

function unreachable(reason: string): Verdict {
  return { classification: 'UNREACHABLE', reason, transient: false, ack: null };
}

/** Where and with what secret to deliver: provider-router's word on the rail (delivery → router only). */
async function targetOf(deps: DeliveryDeps, order: Order): Promise<Target | { failure: Verdict }> {
  let credentials: RailCredentials;
  try {
    credentials = await deps.bus.request(routerQueries.railCredentials, {
      railId: order.railId,
      orderKey: order.orderKey,
    });
  } catch (error) {
    // provider-router away: retry the event later, this is not the provider's fault.
    if (!isAppError(error) || error.code === 'service_unavailable') throw error;
    return { failure: unreachable(`no credentials for the rail: ${error.message}`) };
  }
  const { endpoint, secret } = credentials;
  if (!endpoint || !secret) return { failure: unreachable('the rail has no webhook endpoint') };
  return { endpoint, secret };
}

/** The delivery classification an order ends with when its last attempt got no answer. */
function outcomeClassification(last: DeliveryAttempt | undefined): DeliveryClassification {
  if (!last || last.classification === 'IN_FLIGHT' || last.classification === 'INTERRUPTED') return 'TIMEOUT';
  return last.classification;
}

/** Records the final verdict, its last attempts and its delivery.* event in one write. */
async function finish(deps: DeliveryDeps, order: Order, verdict: Verdict, attempts: DeliveryAttempt[]) {
  const answered = verdict.classification === 'ACCEPTED' || verdict.classification === 'REJECTED';
  const updated = await finishDelivery(
    deps.outbox,
    deps.orders,
    order,
    {
      status: answered ? 'ACKED' : 'FAILED',
      outcome: verdict.classification,
      reason: verdict.reason,
      ack: verdict.ack,
    },
    attempts,
    outcomeEvent(order, verdict.classification, verdict.reason, order.attemptCount, new Date()),
  );
  if (updated) countOrderOutcome(deps.metrics, verdict.classification);
  else
    deps.log.warn(
      { orderKey: order.orderKey, railId: order.railId },
      'order left PENDING before its delivery finished',
    );
}

/**
 * One step of a webhook delivery (`deliverOrder`), run for every (re)delivery of
 * `order.created`. The attempt is claimed and stored as IN_FLIGHT on the record
 * (compare-and-set on status and attempt count) before anything is sent, so an order
 * already acked is never sent again, and a crash mid-POST leaves a visible attempt, which
 * the next delivery of the event records as INTERRUPTED before it sends the same key again
 * (the provider's idempotency, handler duty 6, turns that into a repeated ack, never a
 * second execution). A retry is a JetStream redelivery with delay, which survives a restart.
 * Every POST goes through the outbound rules: the endpoint must be a public address, judged
 * again when the socket connects.
 */
export async function deliverOrder(deps: DeliveryDeps, order: Order): Promise<HandleResult> {
  const { config } = deps;
  if (order.status !== 'PENDING') return;
  // Still in flight when the event comes again: the process that sent it died.
  const interrupted = order.inFlight ? [interruptedAttempt(order.inFlight)] : [];
  if (order.attemptCount >= config.maxAttempts) {
    const last = [...order.attempts, ...interrupted].at(-1);
    const verdict: Verdict = {
      classification: outcomeClassification(last),
      reason: last?.reason ?? 'the delivery was interrupted',
      transient: false,
      ack: null,
    };
    return finish(deps, order, verdict, interrupted);
  }
  const target = await targetOf(deps, order);
  if ('failure' in target) return finish(deps, order, target.failure, interrupted);

  const sent = inFlightAttempt(order.attemptCount + 1, new Date());
  const claimed = await claimAttempt(deps.orders, order, sent, interrupted);
  // Someone else moved the record on; come back and look at it again rather than guess.
  if (!claimed) return { retryInMs: config.backoffMs };

  const exchange = await postToProvider(deps.http, {
    endpoint: target.endpoint,
    secret: target.secret,
    event: order.payload.type === 'payout.execute' ? 'payout.execute' : 'payment.execute',
    body: JSON.stringify(order.payload),
    timeoutMs: config.timeoutMs,
  });
  const verdict = judgeOrderExchange(exchange, { type: expectedAckType(order), key: order.orderKey });
  const attempt: DeliveryAttempt = {
    ...sent,
    httpStatus: exchange.kind === 'response' ? exchange.status : null,
    latencyMs: exchange.latencyMs,
    classification: verdict.classification,
    reason: verdict.reason,
  };
  deps.log.info({ orderKey: order.orderKey, railId: order.railId, ...attempt }, 'order delivery attempt');
  countAttempt(deps.metrics, verdict.classification);
  if (verdict.transient && attempt.attempt < config.maxAttempts) {
    await recordRetriedAttempt(deps.orders, order, attempt);
    return { retryInMs: backoffDelay(attempt.attempt - 1, { baseMs: config.backoffMs }) };
  }
  return finish(deps, claimed, verdict, [attempt]);
}
