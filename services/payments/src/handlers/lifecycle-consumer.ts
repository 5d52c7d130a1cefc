import { consumeEvents, type NatsConnection, type Naming, type ReceivedEvent } from '@mmp/platform';
import { ExecutionOutcomeData, SettlementReceivedData } from '@mmp/protocol';
import { onExecutionAccepted, onExecutionFailed, onSettlement } from '../domain/lifecycle.js';
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
    if (decision.kind === 'move' && decision.move.to === 'FAILED') {
      set.failureCode = settlement.failureCode ?? 'provider_declined';
      set.failureReason = 'The provider reported the payment as failed.';
    }
    if (decision.kind === 'move' && decision.move.to === 'REFUNDED') set.refundedAmount = payment.amount;
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
  if (!parsed.success) return dropMalformed(deps, event);
  const outcome = parsed.data;
  const result = await transition(
    deps,
    outcome.paymentId,
    (payment): Plan => {
      const detail = { orderKey: outcome.orderKey, railId: outcome.railId };
      if (event.type === 'execution.accepted')
        return { decision: onExecutionAccepted(payment.status), detail };
      return {
        decision: onExecutionFailed(payment.status),
        detail: { ...detail, code: outcome.code },
        set: { failureCode: outcome.code ?? 'provider_unavailable', failureReason: outcome.reason },
      };
    },
    event.requestId,
  );
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
    types: ['execution.accepted', 'execution.failed', 'settlement.received'],
    log: deps.log,
    handle: (event) => handle(deps, event),
  });
}
