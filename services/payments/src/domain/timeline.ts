import type { PaymentStatus, RoutingDecisionData } from '@mmp/protocol';

/** What the timeline shows the merchant of provider-router's choice of rail for the payment. */
const ROUTING_STEP_FIELDS = ['decision', 'railId', 'providerId', 'reason', 'skipped'] as const;
export type RoutingStep = Pick<RoutingDecisionData, (typeof ROUTING_STEP_FIELDS)[number]>;

/** One entry of a payment's timeline (the `events` expansion). */
export type TimelineEntry = {
  /** The event id (ours or provider-router's), or a `tl_` id for entries that published nothing (anomalies). */
  id: string;
  type: string;
  /** The payment's status once the entry was written. */
  status: PaymentStatus;
  at: string;
  /** Internal context for support (settlement ids, order keys, raw reasons); never shown. */
  detail?: Record<string, unknown>;
  /** On the entry of a move to FAILED, EXPIRED or CANCELLED: why, as the merchant may read it. */
  failureCode?: string;
  failureReason?: string | null;
  /** On `routing.decided` entries. */
  routing?: RoutingStep;
};

const ROUTING_DECIDED = 'routing.decided';

/** A routing decision changes no state: it only says where the payment went (or why nowhere). */
export function routingEntry(
  eventId: string,
  at: string,
  data: RoutingDecisionData,
  status: PaymentStatus,
): TimelineEntry {
  return {
    id: eventId,
    type: ROUTING_DECIDED,
    status,
    at,
    detail: { orderKey: data.orderKey },
    routing: Object.fromEntries(ROUTING_STEP_FIELDS.map((field) => [field, data[field]])) as RoutingStep,
  };
}

function toTimelineView(entry: TimelineEntry) {
  return {
    id: entry.id,
    type: entry.type,
    createdAt: entry.at,
    ...(entry.failureCode
      ? { failureCode: entry.failureCode, failureMessage: entry.failureReason ?? null }
      : {}),
    ...entry.routing,
  };
}

/**
 * The `events` expansion, oldest first. Entries from other services carry the time they
 * happened and may be written after later ones (another consumer, a redelivery), so order by
 * time; the sort is stable, so entries of one write keep their order.
 */
export function timelineView(entries: readonly TimelineEntry[]) {
  return [...entries].sort((a, b) => Date.parse(a.at) - Date.parse(b.at)).map(toTimelineView);
}
