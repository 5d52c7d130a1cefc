import { request } from 'undici';
import { signPayload } from '@mmp/protocol';
import { countLoopRun, counter } from '@mmp/platform';
import { nextRetryDelay, type DeliveryAttempt, type WebhookDelivery } from '../domain/webhooks.js';
import {
  claimDelivery,
  findDueDeliveries,
  findEndpoint,
  recordAttempt,
  type AttemptOutcome,
} from '../store/webhooks.js';
import { checkWebhookUrl } from './webhook-url.js';
import type { Deps } from './deps.js';

type PostResult = { statusCode: number | null; error: string | null };

async function post(deps: Deps, delivery: WebhookDelivery): Promise<PostResult> {
  const endpoint = await findEndpoint(deps.db, delivery.endpointId);
  if (!endpoint) return { statusCode: null, error: 'endpoint deleted' };
  if (endpoint.status !== 'enabled') return { statusCode: null, error: 'endpoint disabled' };
  try {
    // Checked again at send time: DNS may have changed since the endpoint was saved.
    await checkWebhookUrl(endpoint.url, {
      livemode: endpoint.livemode,
      allowPrivate: deps.settings.webhookAllowPrivateUrls,
    });
  } catch {
    return { statusCode: null, error: 'endpoint URL refused (not https or private address)' };
  }
  const timestamp = Math.floor(deps.now().getTime() / 1000);
  const signature = signPayload(deps.box.open(endpoint.secretSealed), delivery.payload, timestamp);
  const timeout = deps.settings.webhookTimeoutMs;
  try {
    const response = await request(endpoint.url, {
      method: 'POST',
      body: delivery.payload,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'mmp-webhooks/1',
        'x-service-signature': signature,
        'x-service-event-id': delivery.eventId,
        'x-service-event': delivery.eventType,
      },
      headersTimeout: timeout,
      bodyTimeout: timeout,
      signal: AbortSignal.timeout(timeout),
    });
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return { statusCode: response.statusCode, error: ok ? null : `HTTP ${response.statusCode}` };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const timedOut = name === 'TimeoutError' || name === 'HeadersTimeoutError' || name === 'BodyTimeoutError';
    return {
      statusCode: null,
      error: timedOut
        ? `timeout after ${timeout} ms`
        : `unreachable: ${error instanceof Error ? error.message : 'error'}`,
    };
  }
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
 * dead merchant endpoint only ever occupies one of this loop's slots for one timeout.
 * Deliveries are found through the nextAttemptAt index and claimed before sending.
 */
export function startWebhookSender(deps: Deps, options: { intervalMs: number; concurrency: number }) {
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let ticking: Promise<void> = Promise.resolve();

  async function fill(): Promise<void> {
    const free = options.concurrency - inFlight.size;
    if (free <= 0 || stopped) return;
    const due = await findDueDeliveries(deps.db, deps.now(), free);
    for (const delivery of due) {
      if (stopped) return;
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
          kick();
        });
      inFlight.add(sending);
    }
  }

  let busy = false;
  let again = false;

  function schedule(delayMs: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, delayMs);
  }

  function run() {
    timer = undefined;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    ticking = countLoopRun(deps.metrics, 'webhook_sender', fill)
      .catch((error) => deps.log.warn({ err: error }, 'webhook sender pass failed'))
      .finally(() => {
        busy = false;
        const soon = again;
        again = false;
        schedule(soon ? 0 : options.intervalMs);
      });
  }

  /** New work (a dispatched event, a freed slot): look now rather than at the next tick. */
  function kick() {
    if (busy) again = true;
    else schedule(0);
  }

  schedule(0);
  return {
    kick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await ticking;
      await Promise.all(inFlight);
    },
  };
}
