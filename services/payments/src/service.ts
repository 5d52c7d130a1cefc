import { z } from 'zod';
import {
  BaseEnv,
  createOutbox,
  createSecretBox,
  type Collection,
  type Doc,
  type ServiceDefinition,
} from '@mmp/platform';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './domain/webhooks.js';
import { ensureIndexes, openPaymentsDb } from './store/db.js';
import { createIdempotency } from './store/idempotency.js';
import { backfillOpenUntil } from './store/payments.js';
import type { Deps } from './handlers/deps.js';
import { createOperations } from './handlers/create.js';
import { readOperations } from './handlers/read.js';
import { actionOperations } from './handlers/actions.js';
import { webhookEndpointOperations } from './handlers/webhook-endpoints.js';
import { consumeLifecycleEvents } from './handlers/lifecycle-consumer.js';
import { consumeRoutingEvents } from './handlers/routing-consumer.js';
import { consumeWebhookEvents } from './handlers/webhook-dispatch.js';
import { startWebhookSender } from './handlers/webhook-sender.js';
import { startExpiryLoop } from './handlers/expiry.js';

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');

export const Env = BaseEnv.extend({
  /** Seconds a payment waits for the payer before it expires. */
  PAYMENT_TTL_SECONDS: z.coerce.number().int().positive().default(900),
  /** How often the expiry loop looks for payments past their deadline. */
  EXPIRY_INTERVAL_MS: z.coerce.number().int().positive().default(5000),
  /** Seals merchant webhook secrets (AES-256-GCM); at least 32 characters. */
  SERVICE_SECRET_KEY: z.string().min(32, 'SERVICE_SECRET_KEY must be at least 32 characters'),
  /** Delays between automatic webhook attempts, comma-separated milliseconds. */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE_MS.join(','))
    .transform(parseRetrySchedule)
    .pipe(
      z.array(z.number().int().nonnegative()).min(1, 'WEBHOOK_RETRY_SCHEDULE_MS needs at least one delay'),
    ),
  /** Time a merchant endpoint has to answer one delivery. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** How often the sender looks for due deliveries (new events wake it at once). */
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  /** Deliveries in flight at once, across all endpoints. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().positive().default(16),
  /** Development and tests only: lets live endpoints resolve to private or loopback addresses. */
  WEBHOOK_ALLOW_PRIVATE_URLS: flag.default(false),
  /** How long a request with a busy Idempotency-Key waits for the first one's answer. */
  IDEMPOTENCY_WAIT_MS: z.coerce.number().int().nonnegative().default(3000),
  /** After this long a claimed Idempotency-Key whose request never answered (crash) may be retried. */
  IDEMPOTENCY_STALE_MS: z.coerce.number().int().positive().default(30_000),
});
export type Env = typeof Env;

/** What a test may replace; the running service takes the defaults. */
export type PaymentsServiceOptions = {
  /** The clock of every deadline: payment expiry, Idempotency-Key lifetime, webhook retries. */
  now?: () => Date;
};

export function createPaymentsService(options: PaymentsServiceOptions = {}): ServiceDefinition<Env> {
  const now = options.now ?? (() => new Date());
  return {
    name: 'payments',
    env: Env,
    async start({ env, log, nc, naming, store, publish, services, metrics }) {
      const db = openPaymentsDb(store);
      await ensureIndexes(db);
      const backfilled = await backfillOpenUntil(db);
      if (backfilled > 0) log.info({ backfilled }, 'open payments given their expiry index field');
      const outbox = createOutbox({
        publish,
        log,
        metrics,
        collections: [db.payments as unknown as Collection<Doc>],
      });
      const deps: Deps = {
        db,
        outbox,
        services,
        idempotency: createIdempotency(db.idempotency, {
          waitMs: env.IDEMPOTENCY_WAIT_MS,
          staleMs: env.IDEMPOTENCY_STALE_MS,
          now,
        }),
        box: createSecretBox(env.SERVICE_SECRET_KEY),
        log,
        settings: {
          paymentTtlSeconds: env.PAYMENT_TTL_SECONDS,
          webhookRetryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_MS,
          webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
          webhookAllowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS,
        },
        now,
        metrics,
      };
      outbox.start();
      const sender = startWebhookSender(deps, {
        intervalMs: env.WEBHOOK_POLL_INTERVAL_MS,
        concurrency: env.WEBHOOK_CONCURRENCY,
      });
      const expiry = startExpiryLoop(deps, env.EXPIRY_INTERVAL_MS);
      const lifecycle = await consumeLifecycleEvents(deps, nc, naming);
      const routing = await consumeRoutingEvents(deps, nc, naming);
      const webhooks = await consumeWebhookEvents(deps, nc, naming, () => sender.kick());
      return {
        operations: {
          ...createOperations(deps),
          ...readOperations(deps),
          ...actionOperations(deps),
          ...webhookEndpointOperations(deps),
        },
        async stop() {
          await lifecycle.stop();
          await routing.stop();
          await webhooks.stop();
          await expiry.stop();
          await sender.stop();
          await outbox.stop();
        },
      };
    },
  };
}

export const paymentsService = createPaymentsService();
