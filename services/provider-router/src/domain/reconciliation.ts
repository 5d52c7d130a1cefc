import type { FieldError, Network, SettlementStatus } from '@mmp/protocol';
import type { Order } from './order.js';
import type { SettlementFormat } from './settlement.js';

export type Settlement = {
  _id: string;
  providerId: string;
  idempotencyKey: string;
  transactionRef: string;
  status: SettlementStatus;
  amount: string;
  currency: string;
  network: Network;
  settledAt: string;
  format: SettlementFormat;
  failureCode: string | null;
  /** The exact body received, kept for audits and disputes. */
  rawBody: string;
  orderKey: string | null;
  paymentId: string | null;
  /** From the matched order; null when nothing matched (the body does not say). */
  livemode: boolean | null;
  /** A COMPLETED settlement received after its order's expiresAt. */
  afterExpiry: boolean;
  /**
   * The order this settlement decided: set on an order's first final settlement only, under
   * a unique index, so no order is ever decided twice.
   */
  outcomeOf?: string;
  /** A final settlement received after its order was decided by another: kept, never applied. */
  secondOutcome?: { appliedSettlementId: string; appliedStatus: SettlementStatus };
  /** Later settlements with the same key, refused as duplicates: a provider executing twice shows here. */
  duplicatesRefused?: number;
  receivedAt: string;
};

/** A settlement refused because its amount or currency differs from the order's. */
export type SettlementMismatch = {
  _id: string;
  providerId: string;
  idempotencyKey: string;
  orderKey: string;
  paymentId: string;
  livemode: boolean;
  fields: FieldError[];
  rawBody: string;
  receivedAt: string;
};

/** Which UTC day a report covers, as ISO bounds. */
export function dayBounds(date: string): { from: string; to: string } {
  const from = new Date(`${date}T00:00:00.000Z`);
  return { from: from.toISOString(), to: new Date(from.getTime() + 24 * 3600 * 1000).toISOString() };
}

/**
 * One provider, environment and UTC day: the orders created that day against the
 * settlements received for them, plus what that day brought that matches nothing or
 * came after its order was already decided.
 * A FAILED order was never accepted, so it expects no settlement. Unmatched settlements
 * carry no environment (nothing in the body says), so they appear in both reports.
 */
export function reconcile(input: {
  providerId: string;
  date: string;
  livemode: boolean;
  orders: Order[];
  settlementsOfOrders: Settlement[];
  settlementsOfDay: Settlement[];
  mismatches: SettlementMismatch[];
}) {
  const byOrder = new Map<string, Settlement[]>();
  for (const settlement of input.settlementsOfOrders) {
    if (!settlement.orderKey) continue;
    byOrder.set(settlement.orderKey, [...(byOrder.get(settlement.orderKey) ?? []), settlement]);
  }
  const matched = input.orders
    .filter((order) => byOrder.has(order._id))
    .map((order) => ({
      orderKey: order._id,
      paymentId: order.paymentId,
      amount: order.amount,
      currency: order.currency,
      settlements: (byOrder.get(order._id) ?? []).map((s) => ({
        settlementId: s._id,
        status: s.status,
        receivedAt: s.receivedAt,
      })),
    }));
  const orderWithoutSettlement = input.orders
    .filter((order) => order.status !== 'FAILED' && !byOrder.has(order._id))
    .map((order) => ({
      orderKey: order._id,
      paymentId: order.paymentId,
      status: order.status,
      amount: order.amount,
      currency: order.currency,
      expiresAt: order.expiresAt,
    }));
  const settledWithoutOrder = input.settlementsOfDay
    .filter((s) => s.orderKey === null)
    .map((s) => ({
      settlementId: s._id,
      idempotencyKey: s.idempotencyKey,
      transactionRef: s.transactionRef,
      status: s.status,
      amount: s.amount,
      currency: s.currency,
      receivedAt: s.receivedAt,
    }));
  // Settlements of an order have its environment; the report shows the one asked for.
  const ofEnvironment = input.settlementsOfDay.filter((s) => s.livemode === input.livemode);
  const ofOrder = (s: Settlement) => ({ settlementId: s._id, orderKey: s.orderKey, paymentId: s.paymentId });
  const completedAfterExpiry = ofEnvironment
    .filter((s) => s.afterExpiry)
    .map((s) => ({ ...ofOrder(s), settledAt: s.settledAt, receivedAt: s.receivedAt }));
  const secondOutcome = ofEnvironment.flatMap((s) =>
    s.secondOutcome
      ? [
          {
            ...ofOrder(s),
            idempotencyKey: s.idempotencyKey,
            status: s.status,
            appliedSettlementId: s.secondOutcome.appliedSettlementId,
            appliedStatus: s.secondOutcome.appliedStatus,
            receivedAt: s.receivedAt,
          },
        ]
      : [],
  );
  const amountMismatch = input.mismatches.map((m) => ({
    orderKey: m.orderKey,
    paymentId: m.paymentId,
    idempotencyKey: m.idempotencyKey,
    fields: m.fields,
    receivedAt: m.receivedAt,
  }));
  return {
    providerId: input.providerId,
    date: input.date,
    livemode: input.livemode,
    summary: {
      orders: input.orders.length,
      matched: matched.length,
      settledWithoutOrder: settledWithoutOrder.length,
      orderWithoutSettlement: orderWithoutSettlement.length,
      amountMismatch: amountMismatch.length,
      completedAfterExpiry: completedAfterExpiry.length,
      secondOutcome: secondOutcome.length,
    },
    matched,
    settledWithoutOrder,
    orderWithoutSettlement,
    amountMismatch,
    completedAfterExpiry,
    secondOutcome,
  };
}
