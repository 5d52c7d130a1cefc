import { z } from 'zod';
import { MajorAmountString } from '../money.js';
import { Network } from '../network.js';
import { CurrencyCode, ProtocolVersion, type ExecutionOrder } from './protocol-v1.js';
import { oneOf } from '../one-of.js';

export const SETTLEMENT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REFUNDED'] as const;
export const SettlementStatus = oneOf(SETTLEMENT_STATUSES, 'status');
export type SettlementStatus = z.infer<typeof SettlementStatus>;

/**
 * SettlementEvent v1: exactly eight fields, unknown ones refused, so that a provider's
 * mistake surfaces at certification instead of being silently dropped in production.
 */
export const SettlementEvent = z
  .strictObject({
    protocol_version: ProtocolVersion,
    idempotency_key: z.string().min(1, 'idempotency_key must be a non-empty string').max(255),
    transaction_ref: z.string().min(1, 'transaction_ref must be a non-empty string').max(255),
    amount: MajorAmountString,
    currency: CurrencyCode,
    status: SettlementStatus,
    network: Network,
    settled_at: z.iso.datetime({
      offset: true,
      error: 'settled_at must be an ISO 8601 date-time with offset, e.g. 2025-01-31T12:00:00Z',
    }),
  })
  .meta({
    title: 'SettlementEvent v1',
    description:
      'Outcome of an order, pushed by a provider. Signed with x-service-signature: hex HMAC-SHA256 of the exact body.',
  });
export type SettlementEvent = z.infer<typeof SettlementEvent>;

export const SETTLEMENT_EVENT_SCHEMA_ID =
  'https://schemas.mobile-money-payments.dev/protocol/v1/settlement-event.json';

/** The JSON Schema served at /provider/agent/assist/protocol-v1-schema, derived so it cannot drift. */
export function settlementEventJsonSchema(): Record<string, unknown> {
  return { $id: SETTLEMENT_EVENT_SCHEMA_ID, ...z.toJSONSchema(SettlementEvent, { target: 'draft-2020-12' }) };
}

/** A body carrying protocol_version is a v1 SettlementEvent; any other goes to the proprietary mapping. */
export function isProtocolPayload(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'protocol_version' in body;
}

/** The SettlementEvent of an order: its key, reference, amount, currency and network, with `status` and when it settled. */
export function settlementOfOrder(
  order: ExecutionOrder,
  status: SettlementEvent['status'],
  settledAt: Date,
): SettlementEvent {
  return {
    protocol_version: '1',
    idempotency_key: order.idempotency_key,
    transaction_ref: order.transaction_ref,
    amount: order.amount,
    currency: order.currency,
    status,
    network: order.network,
    settled_at: settledAt.toISOString(),
  };
}
