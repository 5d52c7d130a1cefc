import { z } from 'zod';

import { Currency } from '../money.js';
import { Network } from '../network.js';

/** The payment as every consumer needs it: the full merchant view plus internal links. */
export const PaymentSnapshot = z.object({
  id: z.string(),
  token: z.string(),
  projectId: z.string(),
  livemode: z.boolean(),
  reference: z.string().nullable(),
  amount: z.number().int(),
  currency: Currency,
  status: z.string(),
  paymentMethod: z.string(),
  payerPhone: z.string().nullable(),
  payerName: z.string().nullable(),
  payerEmail: z.string().nullable(),
  description: z.string().nullable(),
  userId: z.string().nullable(),
  customerId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).default({}),
  checkoutSessionId: z.string().nullable(),
  failureCode: z.string().nullable(),
  failureReason: z.string().nullable(),
  refundedAmount: z.number().int().default(0),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
  /** The hosted page of the payment's checkout session; events before it existed lack it. */
  paymentUrl: z.string().nullable().default(null),
  returnUrl: z.string().nullable().default(null),
  cancelUrl: z.string().nullable().default(null),
  /** When an unpaid payment expires. */
  expiresAt: z.iso.datetime().nullable().default(null),
});
export type PaymentSnapshot = z.infer<typeof PaymentSnapshot>;

export const PaymentEventData = z.object({ payment: PaymentSnapshot });
export type PaymentEventData = z.infer<typeof PaymentEventData>;

/** payment.initiated carries what provider-router needs to route the order. */
export const PaymentInitiatedData = PaymentEventData.extend({
  execution: z.object({
    network: Network,
    phone: z.string(),
    country: z.string().length(2),
  }),
});
export type PaymentInitiatedData = z.infer<typeof PaymentInitiatedData>;

/** provider-router created (or moved to another rail) the order of a payment. */
export const OrderCreatedData = z.object({
  orderKey: z.string(),
  paymentId: z.string(),
  railId: z.string(),
  providerId: z.string(),
  transport: z.enum(['webhook', 'pull']),
  /** The exact payment.execute or payout.execute body. */
  payload: z.record(z.string(), z.unknown()),
  expiresAt: z.iso.datetime(),
});
export type OrderCreatedData = z.infer<typeof OrderCreatedData>;

export const DeliveryClassification = z.enum([
  'ACCEPTED',
  'REJECTED',
  'HTTP_ERROR',
  'TIMEOUT',
  'UNREACHABLE',
  'BAD_ACK',
  'ECHO_MISMATCH',
  'EXPIRED',
]);
export type DeliveryClassification = z.infer<typeof DeliveryClassification>;

/** provider-delivery's outcome for one order on one rail. */
export const DeliveryOutcomeData = z.object({
  orderKey: z.string(),
  paymentId: z.string(),
  railId: z.string(),
  classification: DeliveryClassification,
  reason: z.string().nullable(),
  attempts: z.number().int(),
});
export type DeliveryOutcomeData = z.infer<typeof DeliveryOutcomeData>;

/** provider-router's verdict on executing a payment, after failover. */
export const ExecutionOutcomeData = z.object({
  paymentId: z.string(),
  orderKey: z.string().nullable(),
  railId: z.string().nullable(),
  /** An error code of the catalog, e.g. provider_unavailable, provider_timeout. */
  code: z.string().nullable(),
  reason: z.string().nullable(),
});
export type ExecutionOutcomeData = z.infer<typeof ExecutionOutcomeData>;

/** A valid SettlementEvent correlated to an order: the outcome that decides the payment. */
export const SettlementReceivedData = z.object({
  settlementId: z.string(),
  paymentId: z.string(),
  orderKey: z.string(),
  providerId: z.string(),
  status: z.enum(['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REFUNDED']),
  amount: z.number().int(),
  currency: z.string(),
  network: Network,
  settledAt: z.string(),
  /** Provider's reason for FAILED, when its mapping carries one (e.g. insufficient_balance). */
  failureCode: z.string().nullable().default(null),
});
export type SettlementReceivedData = z.infer<typeof SettlementReceivedData>;

/**
 * provider-router's choice of rail for a payment, with its reason and the rails it passed
 * over, so the payment's timeline shows why it went where it went (or nowhere).
 */
export const RoutingDecisionData = z.object({
  paymentId: z.string(),
  orderKey: z.string().nullable(),
  /** routed: first choice; failover: moved after a failed delivery; no_rail: none eligible. */
  decision: z.enum(['routed', 'failover', 'no_rail']),
  railId: z.string().nullable(),
  providerId: z.string().nullable(),
  reason: z.string(),
  skipped: z.array(z.object({ railId: z.string(), reason: z.string() })).default([]),
});
export type RoutingDecisionData = z.infer<typeof RoutingDecisionData>;

/**
 * An outbound transfer payments has debited from the balance: provider-router makes it a
 * `payout.execute` order (key `pexo_…`) on an ACTIVE payout-capable rail of its environment.
 * `transferId` is the refund's `rf_…` or the payout's `po_…`; it is the order's transaction_ref.
 */
export const TransferRequestedData = z.object({
  transferId: z.string(),
  kind: z.enum(['refund', 'payout']),
  projectId: z.string(),
  livemode: z.boolean(),
  amount: z.number().int().positive(),
  currency: Currency,
  network: Network,
  country: z.string().length(2),
  /** E.164 number of the payee (the payer of a refunded payment, or the payout's recipient). */
  phone: z.string(),
  /** A refund prefers the rail that collected its payment. */
  preferredRailId: z.string().nullable(),
});
export type TransferRequestedData = z.infer<typeof TransferRequestedData>;

/**
 * provider-router's outcome of a transfer's order: the correlated SettlementEvent (COMPLETED
 * or FAILED), or FAILED without a settlement when no rail could take the order.
 */
export const TransferOutcomeData = z.object({
  transferId: z.string(),
  kind: z.enum(['refund', 'payout']),
  orderKey: z.string().nullable(),
  railId: z.string().nullable(),
  status: z.enum(['COMPLETED', 'FAILED']),
  /** A code of the catalog when FAILED (account_inactive, provider_unavailable, …). */
  failureCode: z.string().nullable(),
  settledAt: z.string(),
});
export type TransferOutcomeData = z.infer<typeof TransferOutcomeData>;

/**
 * A refund as its consumers need it (customers net their totals of completed ones), with its
 * payment as the refund left it (the merchant's `transaction.refunded` carries both).
 */
export const RefundEventData = z.object({
  payment: PaymentSnapshot,
  refund: z.object({
    id: z.string(),
    paymentId: z.string(),
    paymentToken: z.string(),
    customerId: z.string().nullable(),
    projectId: z.string(),
    livemode: z.boolean(),
    amount: z.number().int(),
    currency: Currency,
    status: z.enum(['PENDING', 'COMPLETED', 'FAILED']),
    reason: z.string().nullable(),
    failureCode: z.string().nullable(),
    failureMessage: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
  }),
});
export type RefundEventData = z.infer<typeof RefundEventData>;

export const PayoutEventData = z.object({
  payout: z.object({
    id: z.string(),
    projectId: z.string(),
    livemode: z.boolean(),
    amount: z.number().int(),
    currency: Currency,
    status: z.enum(['PENDING', 'COMPLETED', 'FAILED']),
    reference: z.string(),
    recipientPhone: z.string(),
    network: Network,
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    failureCode: z.string().nullable(),
    failureMessage: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
  }),
});
export type PayoutEventData = z.infer<typeof PayoutEventData>;

/** The payout gate's question to provider-router, before a refund or payout is debited. */
export const PayoutRouteQuery = z.strictObject({
  livemode: z.boolean(),
  network: Network,
  currency: Currency,
  country: z.string().length(2),
});
export type PayoutRouteQuery = z.infer<typeof PayoutRouteQuery>;

/**
 * `available`: some ACTIVE, in-service, payout-capable rail of the environment serves the
 * channel. `anyRailOfEnvironment`: whether any rail of the environment pays out at all, so a
 * live key on a system without live payout rails hears that, not a missing channel.
 */
export const PayoutRouteAnswer = z.object({
  available: z.boolean(),
  anyRailOfEnvironment: z.boolean(),
  reason: z.string(),
});
export type PayoutRouteAnswer = z.infer<typeof PayoutRouteAnswer>;
