import { isAppError, routerQueries, type OrderStatus } from '@mmp/protocol';
import { OPEN_STATUSES } from '../domain/lifecycle.js';
import type { Payment } from '../domain/payment.js';
import { findPaymentById } from '../store/payments.js';
import type { Deps } from '../deps.js';
import { expirePayment } from './expire.js';
import { applyExecutionOutcome, applySettlement, type ExecutionVerdict } from './outcomes.js';

/** The order states that are a verdict; any other (ROUTED, one added later) applies nothing. */
const VERDICTS: Partial<Record<string, ExecutionVerdict>> = { ACCEPTED: 'accepted', FAILED: 'failed' };

/**
 * Applies what provider-router knows through the same compare-and-set paths as its events:
 * the order's verdict first (a rail accepted it, or none could), then the settlement, so
 * the timeline reads as if the events had arrived.
 */
async function applyOrderStatus(deps: Deps, paymentId: string, status: OrderStatus, requestId: string) {
  const { order, settlement } = status;
  const verdict = order && VERDICTS[order.status];
  if (order && verdict) {
    await applyExecutionOutcome(
      deps,
      verdict,
      {
        paymentId,
        orderKey: order.orderKey,
        railId: order.railId,
        code: verdict === 'failed' ? order.failureCode : null,
        reason: order.decisions.at(-1)?.reason ?? null,
      },
      requestId,
    );
  }
  if (settlement) await applySettlement(deps, settlement, requestId);
}

/**
 * The merchant asks for the truth now: what provider-router knows is applied (an event this
 * service missed), a payment past its deadline expires, and the payment is answered as stored.
 * While provider-router is away, the stored state stays true until a settlement says otherwise.
 */
export async function verifyPayment(deps: Deps, payment: Payment, requestId: string): Promise<Payment> {
  try {
    const status = await deps.bus.request(
      routerQueries.orderStatus,
      { paymentId: payment.id },
      { requestId },
    );
    await applyOrderStatus(deps, payment.id, status, requestId);
  } catch (error) {
    if (!isAppError(error)) throw error;
    deps.log.warn(
      { code: error.code, paymentId: payment.id },
      'provider-router unavailable during verify; answering stored state',
    );
  }
  const current = (await findPaymentById(deps.db, payment.id)) ?? payment;
  if (OPEN_STATUSES.includes(current.status) && new Date(current.expiresAt) <= deps.now()) {
    await expirePayment(deps, current, requestId);
  }
  return (await findPaymentById(deps.db, payment.id)) ?? current;
}
