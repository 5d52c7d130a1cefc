import { formatMajorAmount, type PaymentInitiatedData, type TransferRequestedData } from '@mmp/protocol';
import type { RouteChoice, RouteCriteria, SkippedRail } from './routing.js';
import type { Transport } from './rail.js';

/**
 * ROUTED: handed to a rail, awaiting delivery's outcome; ACCEPTED: a rail accepted it (the
 * settlement decides the payment); FAILED: no rail could take it (the payment failed).
 */
export type OrderStatus = 'ROUTED' | 'ACCEPTED' | 'FAILED';

/**
 * One step of the order's history. Routing steps (routed, failover, no_rail) are also
 * published as routing.decided for the payment's timeline; accepted and failed are the
 * execution.* events' own business.
 */
export type RoutingDecision = {
  at: string;
  railId: string | null;
  action: 'routed' | 'failover' | 'no_rail' | 'accepted' | 'failed';
  reason: string;
  skipped?: SkippedRail[];
};
export type RoutingStep = RoutingDecision & { action: 'routed' | 'failover' | 'no_rail' };

export type Order = {
  /** The order key `pexec_…`, also the payment.execute idempotency_key. */
  _id: string;
  paymentId: string;
  projectId: string;
  livemode: boolean;
  amount: number;
  currency: string;
  criteria: RouteCriteria;
  /** The service's transaction reference sent to the provider (the payment token). */
  transactionRef: string;
  payload: Record<string, unknown>;
  status: OrderStatus;
  railId: string | null;
  providerId: string | null;
  transport: Transport | null;
  triedRailIds: string[];
  /** Every provider the order was handed to: any of them may settle it. */
  providerIds: string[];
  lastClassification: string | null;
  failureCode: string | null;
  decisions: RoutingDecision[];
  expiresAt: string;
  /**
   * A certification run's order: on one rail only (no routing, no failover), unknown to
   * payments, teaching the rail's breaker nothing; `relayEndpoint` replaces the rail's
   * endpoint for the fault-relay cases.
   */
  certification?: { runId: string; relayEndpoint: string | null };
  /**
   * A refund's or payout's `payout.execute` order: `paymentId` holds the transfer's id
   * (`rf_…`, `po_…`), payments hears only its outcome (transfer.settled).
   */
  transfer?: { id: string; kind: 'refund' | 'payout' };
  createdAt: string;
  updatedAt: string;
};

/** What an order is before routing: its key, what it moves, and for whom. */
export type OrderRequest = Pick<
  Order,
  | '_id'
  | 'paymentId'
  | 'projectId'
  | 'livemode'
  | 'amount'
  | 'currency'
  | 'criteria'
  | 'transactionRef'
  | 'payload'
> &
  Pick<Order, 'transfer' | 'certification'>;

/** The first routing step: the chosen rail, or no rail and why. */
function firstStep(choice: RouteChoice, at: string): RoutingStep {
  return {
    at,
    railId: choice.rail?._id ?? null,
    action: choice.rail ? 'routed' : 'no_rail',
    reason: choice.reason,
    skipped: choice.skipped,
  };
}

/**
 * An order as its first routing leaves it: handed to the chosen rail, or FAILED with
 * provider_unavailable when none serves it. It expires `ttlMs` after `now` (epoch ms).
 */
export function routedOrder(
  request: OrderRequest,
  choice: RouteChoice,
  now: number,
  ttlMs: number,
): { order: Order; step: RoutingStep } {
  const at = new Date(now).toISOString();
  const step = firstStep(choice, at);
  const order: Order = {
    ...request,
    status: choice.rail ? 'ROUTED' : 'FAILED',
    railId: choice.rail?._id ?? null,
    providerId: choice.rail?.providerId ?? null,
    transport: choice.rail?.transport ?? null,
    triedRailIds: choice.rail ? [choice.rail._id] : [],
    providerIds: choice.rail ? [choice.rail.providerId] : [],
    lastClassification: null,
    failureCode: choice.rail ? null : 'provider_unavailable',
    decisions: [step],
    expiresAt: new Date(now + ttlMs).toISOString(),
    createdAt: at,
    updatedAt: at,
  };
  return { order, step };
}

/** Rejection reasons that describe the payer's wallet: another rail would refuse it too. */
export const PAYER_ERROR_CODES = [
  'insufficient_balance',
  'account_inactive',
  'invalid_phone',
  'transaction_limit',
  'pin_error',
] as const;

export function payerErrorCode(reason: string | null): string | null {
  const code = reason?.trim().toLowerCase() ?? '';
  return (PAYER_ERROR_CODES as readonly string[]).includes(code) ? code : null;
}

/** The code the payment fails with once no rail is left. */
export function exhaustedCode(
  lastClassification: string | null,
): 'provider_timeout' | 'provider_unavailable' {
  return lastClassification === 'TIMEOUT' || lastClassification === 'EXPIRED'
    ? 'provider_timeout'
    : 'provider_unavailable';
}

/** What an execute body says of the money and the wallet, the same for both kinds. */
type ExecuteFacts = {
  amount: number;
  currency: string;
  network: string;
  country: string;
  phone: string;
  transactionRef: string;
};

function executeBody(
  type: 'payment.execute' | 'payout.execute',
  orderKey: string,
  facts: ExecuteFacts,
  nowMs: number,
): Record<string, unknown> {
  return {
    protocol_version: '1',
    type,
    idempotency_key: orderKey,
    amount: formatMajorAmount(facts.amount),
    currency: facts.currency,
    network: facts.network,
    country: facts.country,
    payee: { msisdn: facts.phone },
    transaction_ref: facts.transactionRef,
    timestamp: Math.floor(nowMs / 1000),
  };
}

/**
 * The exact payment.execute body. `transaction_ref` is the payment token: the merchant's
 * and the payer's handle on the payment, stable across failovers, and what a provider may
 * echo in its SettlementEvent instead of the idempotency_key.
 */
export function paymentExecuteBody(
  orderKey: string,
  data: PaymentInitiatedData,
  nowMs: number,
): Record<string, unknown> {
  const { payment, execution } = data;
  return executeBody(
    'payment.execute',
    orderKey,
    { ...execution, amount: payment.amount, currency: payment.currency, transactionRef: payment.token },
    nowMs,
  );
}

/**
 * The exact payout.execute body. `transaction_ref` is the transfer's own id (the
 * specification: payout orders use their own reference), stable across failovers.
 */
export function payoutExecuteBody(
  orderKey: string,
  data: TransferRequestedData,
  nowMs: number,
): Record<string, unknown> {
  return executeBody('payout.execute', orderKey, { ...data, transactionRef: data.transferId }, nowMs);
}

export function orderStatusView(order: Order) {
  return {
    orderKey: order._id,
    status: order.status,
    railId: order.railId,
    providerId: order.providerId,
    failureCode: order.failureCode,
    expiresAt: order.expiresAt,
    decisions: order.decisions,
  };
}
