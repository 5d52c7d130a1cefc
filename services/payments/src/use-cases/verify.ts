import { isAppError, routerQueries, type OrderStatus } from '@mmp/protocol';
import { OPEN_STATUSES } from '../domain/lifecycle.js';
import type { Payment } from '../domain/payment.js';
import type { Deps } from '../deps.js';
import { expirePayment } from './expire.js';
import { applyExecutionOutcome, applySettlement, type ExecutionVerdict } from './outcomes.js';
import type { TransitionResult } from './transition.js';

/** The order states that are a verdict; any other (ROUTED, one added later) applies nothing. */
const VERDICTS: Partial<Record<string, ExecutionVerdict>> = { ACCEPTED: 'accepted', FAILED: 'failed' };

/** The payment after a transition: as written, as found, or (gone meanwhile) as it was. */
const after = (result: TransitionResult, before: Payment) =>
  result.outcome === 'missing' ? before : result.payment;

/**
 * Applies what provider-router knows through the same compare-and-set paths as its events:
 * the order's verdict first (a rail accepted it, or none could), then the settlement, so
 * the timeline reads as if the events had arrived. Each step starts from the payment the
 * last one left, so verify reads the store once however much it applies.
 */
async function applyOrderStatus(deps: Deps, payment: Payment, status: OrderStatus, requestId: string) {
  const { order, settlement } = status;
  const verdict = order && VERDICTS[order.status];
  let current = payment;
  if (order && verdict) {
    const outcome = {
      paymentId: payment.id,
      orderKey: order.orderKey,
      railId: order.railId,
      code: verdict === 'failed' ? order.failureCode : null,
      reason: order.decisions.at(-1)?.reason ?? null,
    };
    current = after(await applyExecutionOutcome(deps, verdict, outcome, requestId, current), current);
  }
  if (settlement) current = after(await applySettlement(deps, settlement, requestId, current), current);
  return current;
}

/**
 * The merchant asks for the truth now: what provider-router knows is applied (an event this
 * service missed), a payment past its deadline expires, and the payment is answered as stored.
 * While provider-router is away, the stored state stays true until a settlement says otherwise.
 */
export async function verifyPayment(deps: Deps, payment: Payment, requestId: string): Promise<Payment> {
  let current = payment;
  try {
    const status = await deps.bus.request(
      routerQueries.orderStatus,
      { paymentId: payment.id },
      { requestId },
    );
    current = await applyOrderStatus(deps, payment, status, requestId);
  } catch (error) {
    if (!isAppError(error)) throw error;
    deps.log.warn(
      { code: error.code, paymentId: payment.id },
      'provider-router unavailable during verify; answering stored state',
    );
  }
  if (OPEN_STATUSES.includes(current.status) && new Date(current.expiresAt) <= deps.now()) {
    current = after(await expirePayment(deps, current, requestId), current);
  }
  return current;
}
