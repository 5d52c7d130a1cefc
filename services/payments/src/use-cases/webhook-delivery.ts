import { counter } from '@mmp/platform';
import { signPayload } from '@mmp/protocol';
import { nextRetryDelay, type DeliveryAttempt, type WebhookDelivery } from '../domain/webhooks.js';
import {
  claimDelivery,
  findDueDeliveries,
  findEndpoint,
  recordAttempt,
  type AttemptOutcome,
} from '../store/webhooks.js';
import type { Deps } from '../deps.js';

/**
 * What an attempt records: the endpoint's status code, or a coarse class of failure
 * (`timeout`, `connection refused`, `private address`…). Never the remote host's own
 * error text: the deliveries log must not map a network for whoever reads it.
 */
type PostResult = { statusCode: number | null; error: string | null };

async function post(deps: Deps, delivery: WebhookDelivery): Promise<PostResult> {
  const endpoint = await findEndpoint(deps.db, delivery.endpointId);
  if (!endpoint) return { statusCode: null, error: 'endpoint deleted' };
  if (endpoint.status !== 'enabled') return { statusCode: null, error: 'endpoint disabled' };
  const timestamp = Math.floor(deps.now().getTime() / 1000);
  const signature = signPayload(deps.box.open(endpoint.secretSealed), delivery.payload, timestamp);
  // The platform's client judges the address again when it connects: a name that resolved
  // publicly when the endpoint was saved and privately now is refused.
  const exchange = await deps.http.send({
    url: endpoint.url,
    method: 'POST',
    body: delivery.payload,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'mmp-webhooks/1',
      'x-service-signature': signature,
      'x-service-event-id': delivery.eventId,
      'x-service-event': delivery.eventType,
    },
    timeoutMs: deps.settings.webhookTimeoutMs,
  });
  if (exchange.kind === 'timeout') return { statusCode: null, error: 'timeout' };
  if (exchange.kind === 'failed') return { statusCode: null, error: exchange.reason };
  const ok = exchange.status >= 200 && exchange.status < 300;
  return { statusCode: exchange.status, error: ok ? null : `HTTP ${exchange.status}` };
}

function outcomeOf(deps: Deps, delivery: WebhookDelivery, result: PostResult): AttemptOutcome {
  if (result.statusCode !== null && result.error === null) return { kind: 'delivered' };
  if (delivery.manual || result.error === 'endpoint deleted') return { kind: 'failed' };
  const delay = nextRetryDelay(deps.settings.webhookRetryScheduleMs, delivery.retryCount);
  if (delay === null) return { kind: 'failed' };
  return { kind: 'retry', nextAttemptAt: new Date(deps.now().getTime() + delay) };
}

async function sendOne(deps: Deps, claimed: WebhookDelivery): Promise<void> {
  const started = performance.now();
  const result = await post(deps, claimed);
  const attempt: DeliveryAttempt = {
    at: deps.now().toISOString(),
    statusCode: result.statusCode,
    latencyMs: Math.round(performance.now() - started),
    error: result.error,
    manual: claimed.manual,
  };
  const outcome = outcomeOf(deps, claimed, result);
  if (await recordAttempt(deps.db, claimed, attempt, outcome))
    counter(
      deps.metrics,
      'mmp_webhook_deliveries_total',
      'Merchant webhook attempts, by outcome: delivered, retry (scheduled again), failed (given up).',
      ['outcome'],
    ).inc({ outcome: outcome.kind });
}

/**
 * Sends due deliveries with bounded concurrency, apart from any payment request: a slow or
 * dead merchant endpoint only ever occupies one slot for one timeout. `fill` is one pass of
 * the sender loop: it claims deliveries for the free slots (found through the nextAttemptAt
 * index) and starts them without waiting; `freed` runs whenever one ends, so the loop looks
 * again at once. `drain` waits for the sends under way, after the loop has stopped.
 */
export function createWebhookSender(deps: Deps, concurrency: number) {
  const inFlight = new Set<Promise<void>>();
  return {
    async fill(signal: AbortSignal, freed: () => void): Promise<void> {
      const free = concurrency - inFlight.size;
      if (free <= 0) return;
      for (const delivery of await findDueDeliveries(deps.db, deps.now(), free)) {
        if (signal.aborted) return;
        // Claimed past the send's own timeout, so only a crashed sender's claim ever lapses.
        const claimedUntil = new Date(deps.now().getTime() + deps.settings.webhookTimeoutMs * 2 + 10_000);
        const claimed = await claimDelivery(deps.db, delivery, claimedUntil);
        if (!claimed) continue;
        const sending: Promise<void> = sendOne(deps, claimed)
          .catch((error) =>
            deps.log.warn({ err: error, deliveryId: claimed.id }, 'webhook attempt not recorded'),
          )
          .finally(() => {
            inFlight.delete(sending);
            freed();
          });
        inFlight.add(sending);
      }
    },
    async drain(): Promise<void> {
      await Promise.all(inFlight);
    },
  };
}
