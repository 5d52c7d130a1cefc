import type { Currency, CustomerContact, PaymentSnapshot, PaymentStatus } from '@mmp/protocol';
import type { TimelineEntry } from './timeline.js';

/** A payment as stored: the merchant view, internal links, and the lifecycle's bookkeeping. */
export type Payment = {
  _id: string;
  id: string;
  token: string;
  projectId: string;
  livemode: boolean;
  reference: string | null;
  /** `<projectId>:<livemode>:<reference>`, only when a reference is given (unique, sparse). */
  referenceKey?: string;
  amount: number;
  currency: Currency;
  status: PaymentStatus;
  paymentMethod: string;
  paymentUrl: string | null;
  payerPhone: string | null;
  payerName: string | null;
  payerEmail: string | null;
  description: string | null;
  returnUrl: string | null;
  cancelUrl: string | null;
  userId: string | null;
  customerId: string | null;
  customer: CustomerContact | null;
  metadata: Record<string, unknown>;
  /** The hosted page's session: minted here for a merchant's payment, or the session that asked. */
  checkoutSessionId: string | null;
  /**
   * The checkout session again, unique (sparse: payments stored before it was set on
   * merchant payments lack it): one payment per session, found by session.
   */
  sessionKey?: string;
  /** The Idempotency-Key record that created this payment, to recover after a crash. */
  idempotencyId: string | null;
  failureCode: string | null;
  failureReason: string | null;
  refundedAmount: number;
  /** Settlement ids already applied, so verify and the consumer apply each once. */
  appliedSettlements: string[];
  initiatedAt: string | null;
  expiresAt: string;
  /**
   * `expiresAt` while the payment is open (PENDING or PROCESSING), removed in the write that
   * moves it on: the expiry loop's sparse index then holds open payments only.
   */
  openUntil?: string;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  timeline: TimelineEntry[];
  /** Incremented by every write; compare-and-set guards on it besides the status. */
  version: number;
};

export function toSnapshot(payment: Payment): PaymentSnapshot {
  return {
    id: payment.id,
    token: payment.token,
    projectId: payment.projectId,
    livemode: payment.livemode,
    reference: payment.reference,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
    paymentMethod: payment.paymentMethod,
    payerPhone: payment.payerPhone,
    payerName: payment.payerName,
    payerEmail: payment.payerEmail,
    description: payment.description,
    userId: payment.userId,
    customerId: payment.customerId,
    metadata: payment.metadata,
    checkoutSessionId: payment.checkoutSessionId,
    failureCode: payment.failureCode,
    failureReason: payment.failureReason,
    refundedAmount: payment.refundedAmount,
    createdAt: payment.createdAt,
    completedAt: payment.completedAt,
    paymentUrl: payment.paymentUrl,
    returnUrl: payment.returnUrl,
    cancelUrl: payment.cancelUrl,
    expiresAt: payment.expiresAt,
  };
}

/** Exactly the fields the specification lists for the create response. */
export function toCreateResponse(payment: Payment) {
  return {
    id: payment.id,
    token: payment.token,
    projectId: payment.projectId,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
    paymentUrl: payment.paymentUrl,
    description: payment.description,
    livemode: payment.livemode,
    createdAt: payment.createdAt,
    completedAt: payment.completedAt,
  };
}

/** The full field set of retrieve, verify and the user list (protocol `Payment`). */
export function toFullPayment(payment: Payment) {
  return {
    id: payment.id,
    token: payment.token,
    projectId: payment.projectId,
    reference: payment.reference,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
    paymentMethod: payment.paymentMethod,
    paymentUrl: payment.paymentUrl,
    payerPhone: payment.payerPhone,
    payerName: payment.payerName,
    payerEmail: payment.payerEmail,
    description: payment.description,
    livemode: payment.livemode,
    createdAt: payment.createdAt,
    completedAt: payment.completedAt,
    ...failureOf(payment),
  };
}

/** Why it failed, as merchants read it (the stored `failureReason` is their `failureMessage`). */
export function failureOf(payment: Pick<Payment, 'failureCode' | 'failureReason'>) {
  return { failureCode: payment.failureCode, failureMessage: payment.failureReason };
}

export function toListItem(payment: Payment) {
  return {
    id: payment.id,
    token: payment.token,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
    paymentMethod: payment.paymentMethod,
    createdAt: payment.createdAt,
    completedAt: payment.completedAt,
    ...failureOf(payment),
  };
}
