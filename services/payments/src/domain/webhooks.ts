import { backoffDelay } from '@mmp/platform';
import type { PaymentSnapshot } from '@mmp/protocol';
import { failureOf } from './payment.js';

/**
 * Merchant webhook event types, and the event each one announces. A refund is announced by
 * `refund.completed`, which carries the refund besides its payment, rather than by the
 * payment's move to (PARTIALLY_)REFUNDED.
 */
export const MERCHANT_EVENT_TYPES = {
  'payment.completed': 'transaction.completed',
  'payment.failed': 'transaction.failed',
  'payment.expired': 'transaction.expired',
  'payment.cancelled': 'transaction.cancelled',
  'refund.completed': 'transaction.refunded',
  'payout.completed': 'payout.completed',
  'payout.failed': 'payout.failed',
} as const;
export type MerchantEventType = (typeof MERCHANT_EVENT_TYPES)[keyof typeof MERCHANT_EVENT_TYPES];
export const MERCHANT_EVENT_NAMES = [...new Set(Object.values(MERCHANT_EVENT_TYPES))] as MerchantEventType[];

export function merchantEventTypeFor(paymentEventType: string): MerchantEventType | null {
  return (MERCHANT_EVENT_TYPES as Record<string, MerchantEventType>)[paymentEventType] ?? null;
}

export type WebhookEndpoint = {
  _id: string;
  id: string;
  projectId: string;
  livemode: boolean;
  url: string;
  description: string | null;
  /** Event types the endpoint receives; `*` for all. */
  enabledEvents: string[];
  status: 'enabled' | 'disabled';
  /** AES-GCM sealed `whsec_…`; the plain secret is shown only at create and roll. */
  secretSealed: string;
  secretHint: string;
  createdAt: string;
  updatedAt: string;
};

export function toEndpointView(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    enabledEvents: endpoint.enabledEvents,
    livemode: endpoint.livemode,
    status: endpoint.status,
    secretHint: endpoint.secretHint,
    createdAt: endpoint.createdAt,
  };
}

export function subscribes(endpoint: WebhookEndpoint, type: MerchantEventType): boolean {
  return (
    endpoint.status === 'enabled' &&
    (endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(type))
  );
}

export type DeliveryAttempt = {
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  manual: boolean;
};

export type WebhookDelivery = {
  /** `<eventId>:<endpointId>`: one delivery per event and endpoint, by construction. */
  _id: string;
  id: string;
  eventId: string;
  eventType: MerchantEventType;
  endpointId: string;
  projectId: string;
  livemode: boolean;
  /** The exact body sent on every attempt, so retries are byte-identical. */
  payload: string;
  status: 'pending' | 'sending' | 'delivered' | 'failed';
  /** Automatic attempts made so far; indexes the retry schedule. */
  retryCount: number;
  /** The next attempt is a redelivery the merchant asked for. */
  manual: boolean;
  nextAttemptAt: string | null;
  /** While `sending`: after this instant a crashed sender's claim may be taken over. */
  claimedUntil: string | null;
  attempts: DeliveryAttempt[];
  createdAt: string;
  updatedAt: string;
};

export function toDeliveryView(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    endpointId: delivery.endpointId,
    status: delivery.status === 'sending' ? 'pending' : delivery.status,
    attemptCount: delivery.attempts.length,
    nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt : null,
    attempts: delivery.attempts,
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
  };
}

/** The body a merchant receives: a stable event id and the payment as it was at the event. */
export function buildMerchantEvent(options: {
  eventId: string;
  type: MerchantEventType;
  occurredAt: string;
  payment: PaymentSnapshot;
}) {
  const { payment } = options;
  return {
    id: options.eventId,
    type: options.type,
    createdAt: options.occurredAt,
    livemode: payment.livemode,
    data: {
      token: payment.token,
      amount: payment.amount,
      currency: payment.currency,
      status: payment.status,
      reference: payment.reference,
      paymentMethod: payment.paymentMethod,
      payerPhone: payment.payerPhone,
      completedAt: payment.completedAt,
      metadata: payment.metadata,
      // Why a payment failed, expired or was cancelled (null otherwise), so a merchant need
      // not call back to find out.
      ...failureOf(payment),
    },
  };
}

/**
 * Delay before the next automatic attempt, or null when the schedule is exhausted: the
 * scheduled delay within ±20 % (the platform's jitter over 0.8 of it), which spreads the
 * retries of many deliveries that failed together.
 */
export function nextRetryDelay(
  schedule: readonly number[],
  retryCount: number,
  random: () => number = Math.random,
): number | null {
  const base = schedule[retryCount];
  if (base === undefined) return null;
  return backoffDelay(0, { baseMs: 0.8 * base, jitter: 0.5 }, random);
}

/** Default schedule: 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h, 30 h — about 3 days in all. */
export const DEFAULT_RETRY_SCHEDULE_MS = [
  60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 86_400_000, 108_000_000,
];

export function parseRetrySchedule(text: string): number[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map(Number);
}
