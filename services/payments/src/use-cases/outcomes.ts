import type { ExecutionOutcomeData, SettlementReceivedData } from '@mmp/protocol';
import { onExecutionAccepted, onExecutionFailed, onSettlement } from '../domain/lifecycle.js';
import { failureReasonFor } from '../domain/failures.js';
import type { Payment } from '../domain/payment.js';
import type { Deps } from '../deps.js';
import { transition, type Plan, type TransitionResult } from './transition.js';

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

/** `known`: the payment as the caller has just read it, which saves a read. */
export function applySettlement(
  deps: Deps,
  settlement: SettlementReceivedData,
  requestId?: string,
  known?: Payment,
): Promise<TransitionResult> {
  return transition(deps, known ?? settlement.paymentId, settlementPlan(settlement), requestId);
}

/** provider-router's verdict: a rail accepted the order, or none could take it. */
export type ExecutionVerdict = 'accepted' | 'failed';

/** provider-router's verdict on executing the payment; shared by the consumer and verify. */
export function applyExecutionOutcome(
  deps: Deps,
  verdict: ExecutionVerdict,
  outcome: ExecutionOutcomeData,
  requestId?: string,
  known?: Payment,
): Promise<TransitionResult> {
  return transition(
    deps,
    known ?? outcome.paymentId,
    (payment): Plan => {
      const detail = { orderKey: outcome.orderKey, railId: outcome.railId };
      if (verdict === 'accepted') return { decision: onExecutionAccepted(payment.status), detail };
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
