import { randomUUID } from 'node:crypto';
import { samplePaymentSnapshot } from '@mmp/platform/testing';
import type { PaymentEventData, PaymentInitiatedData, PaymentSnapshot, PendingEvent } from '@mmp/protocol';
import { paymentVersion } from '../src/domain/payment-version.js';
import { profileOf, summarize, type TransactionRecord } from '../src/domain/profile.js';

/** A realistic snapshot as payments publishes it; override what the test is about. */
export function snapshot(overrides: Partial<PaymentSnapshot> = {}): PaymentSnapshot {
  const payment = samplePaymentSnapshot({
    description: 'Order',
    customerId: 'cust-1',
    createdAt: '2025-01-10T10:00:00.000Z',
  });
  return { ...payment, checkoutSessionId: `cs_${payment.id.slice(0, 12)}`, ...overrides };
}

let counter = 0;

/** The event payments writes into its outbox for a payment entering `payment.status`. */
export function paymentEvent(
  type: string,
  payment: PaymentSnapshot,
  occurredAt: string,
): PendingEvent & { data: PaymentEventData } {
  counter += 1;
  return {
    id: `evt_${randomUUID().replace(/-/g, '')}${counter}`,
    type,
    occurredAt,
    projectId: payment.projectId,
    livemode: payment.livemode,
    data: { payment },
  };
}

const at = (base: string, minutes: number) =>
  new Date(new Date(base).getTime() + minutes * 60_000).toISOString();

/**
 * The events of one payment's life, as payments emits them: created, initiated (payer
 * phone known), then the outcome and any refunds, each a minute after the previous.
 */
export function paymentLife(
  base: PaymentSnapshot,
  outcome: 'COMPLETED' | 'FAILED' | 'EXPIRED' | 'PENDING',
  refunds: number[] = [],
): PendingEvent[] {
  const t0 = base.createdAt;
  const events = [paymentEvent('payment.created', base, t0)];
  const initiated = {
    ...base,
    paymentMethod: 'ORANGE_MONEY',
    payerPhone: base.payerPhone ?? '+237690000001',
  };
  const withExecution: PaymentInitiatedData = {
    payment: initiated,
    execution: { network: 'ORANGE_MONEY', phone: initiated.payerPhone ?? '', country: 'CM' },
  };
  events.push({ ...paymentEvent('payment.initiated', initiated, at(t0, 1)), data: withExecution });
  if (outcome === 'PENDING') return events;
  if (outcome !== 'COMPLETED') {
    events.push(
      paymentEvent(`payment.${outcome.toLowerCase()}`, { ...initiated, status: outcome }, at(t0, 2)),
    );
    return events;
  }
  const completed = { ...initiated, status: 'COMPLETED', completedAt: at(t0, 2) };
  events.push(paymentEvent('payment.processing', { ...initiated, status: 'PROCESSING' }, at(t0, 1.5)));
  events.push(paymentEvent('payment.completed', completed, at(t0, 2)));
  let refunded = 0;
  refunds.forEach((amount, index) => {
    refunded += amount;
    const status = refunded >= base.amount ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    events.push(
      paymentEvent(
        `payment.${status.toLowerCase()}`,
        { ...completed, status, refundedAmount: refunded },
        at(t0, 3 + index),
      ),
    );
  });
  return events;
}

/** What the projection keeps of a set of events: per payment, the snapshot of its greatest event. */
export function latestRecords(events: ReturnType<typeof paymentLife>): TransactionRecord[] {
  const best = new Map<string, { version: string; record: TransactionRecord }>();
  for (const event of events) {
    const { payment } = event.data as { payment: PaymentSnapshot };
    const version = paymentVersion(payment, { eventId: event.id, occurredAt: event.occurredAt });
    const held = best.get(payment.id);
    if (!held || held.version < version)
      best.set(payment.id, { version, record: { payment, occurredAt: event.occurredAt } });
  }
  return [...best.values()].map((entry) => entry.record);
}

/** The profile a set of records says, null for none: what the projection must have written. */
export function profileFrom(records: TransactionRecord[]) {
  const summary = summarize(records);
  return summary && profileOf(summary);
}
