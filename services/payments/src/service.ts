import { z } from 'zod';
import {
  BaseEnv,
  createSecretBox,
  followProjects,
  operation,
  operations,
  type Resolve,
  type ServiceDefinition,
} from '@mmp/platform';
import {
  PublicUrlEnv,
  balanceApi,
  notices,
  paymentEvents,
  paymentsApi,
  paymentsForCheckout,
  payoutsApi,
  refundsApi,
  routerEvents,
  transferEvents,
  webhookEndpointsApi,
} from '@mmp/protocol';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './domain/webhooks.js';
import { ensureIndexes, openPaymentsDb } from './store/db.js';
import { createIdempotency } from './store/idempotency.js';
import { backfillOpenUntil } from './store/payments.js';
import { moveEmbeddedEntries } from './store/transfers.js';
import type { Deps } from './deps.js';
import { expireDuePayments } from './use-cases/expire.js';
import { createWebhookSender } from './use-cases/webhook-delivery.js';
import { checkoutHandlers } from './handlers/checkout.js';
import {
  LIFECYCLE_EVENTS,
  WEBHOOK_EVENTS,
  onLifecycleEvent,
  onPaymentEnded,
  onRoutingDecided,
} from './handlers/events.js';
import { merchantPaymentHandlers } from './handlers/merchant-payments.js';
import { transferHandlers } from './handlers/transfers.js';
import { webhookEndpointHandlers } from './handlers/webhook-endpoints.js';
import { applyTransferOutcome, creditCompletedPayment, finishUndebited } from './use-cases/transfers.js';

// ALLOW_HTTP_LOOPBACK_ENDPOINTS (BaseEnv), the development switch every service that calls out reads,
// lets merchant webhook endpoints be on loopback (over http too); never a private address.
// PUBLIC_URL is the hosted pages' origin, as links-checkout serves them.
export const Env = BaseEnv.extend(PublicUrlEnv.shape).extend({
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
  /** How long a request with a busy Idempotency-Key waits for the first one's answer. */
  IDEMPOTENCY_WAIT_MS: z.coerce.number().int().nonnegative().default(3000),
  /**
   * The lease of a claimed Idempotency-Key, renewed while its request runs: a crashed holder's
   * key is free this long after. No longer than IDEMPOTENCY_WAIT_MS, so a retry behind a dead
   * holder outwaits its lease instead of answering 409.
   */
  IDEMPOTENCY_STALE_MS: z.coerce.number().int().positive().default(3000),
});
export type Env = typeof Env;

/** What a test may replace; the running service takes the defaults. */
export type PaymentsServiceOptions = {
  /** The clock of every deadline: payment expiry, Idempotency-Key lifetime, webhook retries. */
  now?: () => Date;
  /** How merchant webhook hosts resolve; a test's own, never the outside DNS. */
  resolve?: Resolve;
};

export function createPaymentsService(options: PaymentsServiceOptions = {}): ServiceDefinition<Env> {
  const now = options.now ?? (() => new Date());
  return {
    name: 'payments',
    env: Env,
    async setup(kit) {
      const { env, log } = kit;
      // The gateway keeps merchants' reads of a payment until it hears the payment changed.
      const db = openPaymentsDb(kit.store, (payment) =>
        kit.notices.tell(notices.paymentChanged, payment?.token ?? '*'),
      );
      await ensureIndexes(db);
      const backfilled = await backfillOpenUntil(db);
      if (backfilled > 0) log.info({ backfilled }, 'open payments given their expiry index field');
      const moved = await moveEmbeddedEntries(db);
      if (moved > 0) log.info({ accounts: moved }, 'ledger entries moved out of their accounts');
      const http = kit.outboundHttp({ resolve: options.resolve });
      const deps: Deps = {
        db,
        outbox: kit.outbox([db.payments, db.accounts]),
        bus: kit.bus,
        idempotency: createIdempotency(db.idempotency, {
          waitMs: env.IDEMPOTENCY_WAIT_MS,
          staleMs: env.IDEMPOTENCY_STALE_MS,
          now,
        }),
        box: createSecretBox(env.SERVICE_SECRET_KEY),
        http,
        projects: followProjects(kit, 'payments-projects'),
        log,
        settings: {
          paymentTtlSeconds: env.PAYMENT_TTL_SECONDS,
          publicUrl: env.PUBLIC_URL,
          webhookRetryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_MS,
          webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
          allowLoopback: env.ALLOW_HTTP_LOOPBACK_ENDPOINTS,
        },
        now,
        metrics: kit.metrics,
      };

      const webhooks = createWebhookSender(deps, env.WEBHOOK_CONCURRENCY);
      // Declared before its loop, so it runs after the loop stopped: sends under way finish.
      kit.onStop(() => webhooks.drain());
      const sender = kit.loop({
        name: 'webhook_sender',
        intervalMs: env.WEBHOOK_POLL_INTERVAL_MS,
        pass: (signal) => webhooks.fill(signal, () => sender.kick()),
      });
      kit.loop({
        name: 'payment_expiry',
        intervalMs: env.EXPIRY_INTERVAL_MS,
        pass: (signal) => expireDuePayments(deps, signal),
      });

      kit.consume({
        durable: 'payments-lifecycle',
        events: LIFECYCLE_EVENTS,
        handle: (event) => onLifecycleEvent(deps, event),
        // A payment's events in order, payments side by side: one slow write no longer holds
        // up every payment behind it, and the writes of several share a commit.
        concurrency: 8,
        laneOf: (event) => event.data.paymentId,
      });
      // Its own durable, so a slow or failing timeline write never holds up the lifecycle.
      kit.consume({
        durable: 'payments-routing',
        events: [routerEvents.routingDecided],
        handle: (event) => onRoutingDecided(deps, event),
      });
      kit.consume({
        durable: 'payments-webhooks',
        events: WEBHOOK_EVENTS,
        handle: (event) => onPaymentEnded(deps, event, () => sender.kick()),
        // Each end makes its own deliveries, which reach the merchant in no promised order.
        anyOrder: true,
      });

      // The ledger: a completed payment is credited once; a transfer's outcome ends its debit.
      kit.consume({
        durable: 'payments-ledger',
        events: [paymentEvents.completed],
        handle: (event) => creditCompletedPayment(deps, event.data, event.requestId),
      });
      kit.consume({
        durable: 'payments-transfers',
        events: [transferEvents.settled],
        handle: (event) => applyTransferOutcome(deps, event.data, event.requestId),
      });
      kit.loop({
        name: 'transfer_debits',
        intervalMs: env.EXPIRY_INTERVAL_MS,
        pass: async () => {
          await finishUndebited(deps, env.IDEMPOTENCY_STALE_MS);
        },
      });

      const transfers = transferHandlers(deps, (handle) =>
        kit.replay([paymentEvents.completed, transferEvents.requested, transferEvents.settled], handle),
      );
      kit.serve(
        ...operations(paymentsApi, merchantPaymentHandlers(deps), { keepsItsOutcomes: ['create', 'cancel'] }),
        ...operations(paymentsForCheckout, checkoutHandlers(deps)),
        ...operations(webhookEndpointsApi, webhookEndpointHandlers(deps)),
        operation(refundsApi.create, transfers.createRefund),
        operation(refundsApi.list, transfers.listRefunds),
        operation(refundsApi.retrieve, transfers.retrieveRefund),
        operation(payoutsApi.create, transfers.createPayout),
        operation(payoutsApi.list, transfers.listPayouts),
        operation(payoutsApi.retrieve, transfers.retrievePayout),
        operation(balanceApi.retrieve, transfers.balance),
        operation(balanceApi.rebuild, transfers.rebuild),
      );
    },
  };
}

export const paymentsService = createPaymentsService();
