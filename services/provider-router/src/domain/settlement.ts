import {
  SettlementEvent,
  amountsEqual,
  appError,
  fieldErrors,
  isProtocolPayload,
  validationMessage,
  type FieldError,
  type SettlementStatus,
} from '@mmp/protocol';
import { applyMapping, type MappedField, type ProprietaryMapping } from './mapping.js';

export type SettlementFormat = 'protocol-v1' | 'proprietary';

export type ParsedSettlement = {
  event: SettlementEvent;
  format: SettlementFormat;
  failureCode: string | null;
};

function invalid(fields: FieldError[]) {
  return appError('validation_error', validationMessage(fields), fields);
}

/**
 * The body as JSON. The specification answers a SettlementEvent with 200, 403, 409 or 422
 * only, so a signed body that is not JSON is a 422 naming `body`, not a 400.
 */
export function parseJsonBody(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody);
  } catch {
    throw invalid([{ field: 'body', message: 'body is not valid JSON' }]);
  }
}

/**
 * A body with protocol_version is validated strictly as SettlementEvent v1; any other goes
 * through the provider's mapping and then the same schema. Field errors of a mapped payload
 * name the SettlementEvent field and where it was read from in the provider's payload.
 */
export function parseSettlement(payload: unknown, mapping: ProprietaryMapping | null): ParsedSettlement {
  if (isProtocolPayload(payload)) {
    const result = SettlementEvent.safeParse(payload);
    if (!result.success) throw invalid(fieldErrors(result.error));
    return { event: result.data, format: 'protocol-v1', failureCode: null };
  }
  if (!mapping) {
    throw invalid([
      {
        field: 'protocol_version',
        message: 'protocol_version is required: no proprietary mapping is configured for this provider',
      },
    ]);
  }
  const mapped = applyMapping(mapping, payload);
  const result = SettlementEvent.safeParse(mapped.candidate);
  if (!result.success) {
    throw invalid(
      fieldErrors(result.error).map(({ field, message }) => {
        const source = mapped.sources[field as MappedField];
        return { field, message: source ? `${message} (mapped from "${source}")` : message };
      }),
    );
  }
  return { event: result.data, format: 'proprietary', failureCode: mapped.failureCode };
}

/** Amount and currency must equal the order's: "500000" for a 5000 order (cents) is refused. */
export function mismatchFields(
  event: SettlementEvent,
  order: { amount: number; currency: string },
): FieldError[] {
  const fields: FieldError[] = [];
  if (!amountsEqual(event.amount, order.amount)) {
    fields.push({
      field: 'amount',
      message: `amount ${event.amount} does not equal the order's amount ${order.amount} (major units, never cents)`,
    });
  }
  if (event.currency !== order.currency) {
    fields.push({
      field: 'currency',
      message: `currency ${event.currency} does not equal the order's currency ${order.currency}`,
    });
  }
  return fields;
}

/**
 * When a settlement may say it happened: not before its order existed (an order cannot be
 * settled before it was handed to a rail) and not in the future, each with `skewMs` of
 * clock difference between the provider and us. `orderCreatedAt` is null when no order
 * matched: only the future is refused then.
 */
export function settledAtFields(
  settledAt: string,
  bounds: { orderCreatedAt: string | null; nowMs: number; skewMs: number },
): FieldError[] {
  const at = Date.parse(settledAt);
  const skewSeconds = Math.round(bounds.skewMs / 1000);
  if (bounds.orderCreatedAt !== null && at < Date.parse(bounds.orderCreatedAt) - bounds.skewMs) {
    return [
      {
        field: 'settled_at',
        message: `settled_at ${settledAt} lies before the order was created (${bounds.orderCreatedAt}), beyond ${skewSeconds} s of clock skew`,
      },
    ];
  }
  if (at > bounds.nowMs + bounds.skewMs) {
    return [
      {
        field: 'settled_at',
        message: `settled_at ${settledAt} lies in the future, beyond ${skewSeconds} s of clock skew`,
      },
    ];
  }
  return [];
}

/** PENDING keeps the payment PROCESSING: only final statuses become a settlement.received event. */
export function isFinal(status: SettlementStatus): boolean {
  return status !== 'PENDING';
}
