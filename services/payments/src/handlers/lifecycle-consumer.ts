import { consumeEvents, type NatsConnection, type Naming, type ReceivedEvent } from '@mmp/platform';
import { EXECUTION_EVENT_TYPES, ExecutionOutcomeData, SettlementReceivedData } from '@mmp/protocol';
import { onExecutionAccepted, onExecutionFailed, onSettlement } from '../domain/lifecycle.js';
import { failureReasonFor } from '../domain/failures.js';
import type { Payment } from '../domain/payment.js';
import { transition, type Plan, type TransitionResult } from './transition.js';
import type { Deps } from './deps.js';

/** What a settlement means for a payment; shared by the consumer and verify. */
export function settlementPlan(settlement: SettlementReceivedData) {
  return (payment: Payment): Plan => {
    if (payment.appliedSettlements.includes(settlement.settlementId)) {
      return { decision: { kind: 'none', reason: 'settlement already applied' } };
    }
    const decision = onSettlement(payment.status, settlement.status);
    const detail = {
      settlementId: settlement.settlementId,
      orderKey: settlement.orderKey,
      settlementStatus: settlement.status,
    };
    const set: Partial<Payment> = {};
    if (payment.paymentMethod === 'UNKNOWN') set.paymentMethod = settlement.network;
    const to = decision.kind === 'move' ? decision.move.to : null;
    if (to === 'FAILED') {
      set.failureCode = settlement.failureCode ?? 'provider_declined';
      set.failureReason = failureReasonFor(set.failureCode);
    }
    if (to === 'CANCELLED') {
      set.failureCode = 'payment_cancelled';
      set.failureReason = 'The payer cancelled the payment with the operator.';
    }
    // Money moved after all: an earlier failure no longer describes the payment.
    if (to === 'COMPLETED') Object.assign(set, { failureCode: null, failureReason: null });
    if (to === 'REFUNDED') set.refundedAmount = payment.amount;
    return { decision, set, detail, settlementId: settlement.settlementId };
  };
}

export function applySettlement(
  deps: Deps,
  settlement: SettlementReceivedData,
  requestId?: string,
): Promise<TransitionResult> {
  return transition(deps, settlement.paymentId, settlementPlan(settlement), requestId);
}

export type ExecutionOutcomeType = (typeof EXECUTION_EVENT_TYPES)[number];

function isExecutionOutcomeType(type: string): type is ExecutionOutcomeType {
  return (EXECUTION_EVENT_TYPES as readonly string[]).includes(type);
}

/** provider-router's verdict on executing the payment; shared by the consumer and verify. */
export function applyExecutionOutcome(
  deps: Deps,
  type: ExecutionOutcomeType,
  outcome: ExecutionOutcomeData,
  requestId?: string,
): Promise<TransitionResult> {
  return transition(
    deps,
    outcome.paymentId,
    (payment): Plan => {
      const detail = { orderKey: outcome.orderKey, railId: outcome.railId };
      if (type === 'execution.accepted') return { decision: onExecutionAccepted(payment.status), detail };
      const code = outcome.code ?? 'provider_unavailable';
      return {
        decision: onExecutionFailed(payment.status),
        detail: { ...detail, code: outcome.code, reason: outcome.reason },
        set: { failureCode: code, failureReason: failureReasonFor(code) },
      };
    },
    requestId,
  );
}

/** Retrying an event that can never parse would block nothing but fill the logs forever. */
function dropMalformed(deps: Deps, event: ReceivedEvent): void {
  deps.log.error({ eventId: event.id, type: event.type }, 'dropping malformed lifecycle event');
}

async function handle(deps: Deps, event: ReceivedEvent): Promise<void> {
  if (event.type === 'settlement.received') {
    const parsed = SettlementReceivedData.safeParse(event.data);
    if (!parsed.success) return dropMalformed(deps, event);
    const settlement = parsed.data;
    const result = await applySettlement(deps, settlement, event.requestId);
    if (result.outcome === 'missing')
      deps.log.warn({ paymentId: settlement.paymentId }, 'settlement for an unknown payment');
    return;
  }
  const parsed = ExecutionOutcomeData.safeParse(event.data);
  if (!isExecutionOutcomeType(event.type) || !parsed.success) return dropMalformed(deps, event);
  const outcome = parsed.data;
  const result = await applyExecutionOutcome(deps, event.type, outcome, event.requestId);
  if (result.outcome === 'missing')
    deps.log.warn(
      { paymentId: outcome.paymentId, type: event.type },
      'execution outcome for an unknown payment',
    );
}

/**
 * Drives the lifecycle from provider-router's events. Every write is a compare-and-set,
 * so a redelivered event finds the payment already moved and changes nothing.
 */
export function consumeLifecycleEvents(deps: Deps, nc: NatsConnection, naming: Naming) {
  return consumeEvents({
    nc,
    naming,
    durable: 'payments-lifecycle',
    types: [...EXECUTION_EVENT_TYPES, 'settlement.received'],
    log: deps.log,
    handle: (event) => handle(deps, event),
  });
}
