import { appError } from '@mmp/protocol';
import { onMerchantCancel, onPayerCancel } from '../domain/lifecycle.js';
import type { Payment } from '../domain/payment.js';
import { findPaymentByToken } from '../store/payments.js';
import type { Deps } from '../deps.js';
import { paymentNotFound } from './initiate.js';
import { transition } from './transition.js';

function cancelledByMerchant(payment: Payment): boolean {
  return (
    payment.status === 'CANCELLED' &&
    payment.timeline.some((entry) => entry.type === 'payment.cancelled' && entry.detail?.by === 'merchant')
  );
}

/**
 * The merchant cancels a payment the payer has not initiated: once an order may be
 * executing, only its settlement decides. `recovering` says a holder of the merchant's
 * Idempotency-Key crashed after cancelling but before answering: its cancel is the answer.
 */
export async function cancelByMerchant(
  deps: Deps,
  payment: Payment,
  recovering: boolean,
  requestId: string,
): Promise<Payment> {
  if (recovering && cancelledByMerchant(payment)) return payment;
  const result = await transition(
    deps,
    payment.id,
    (current) => ({
      decision: current.initiatedAt
        ? { kind: 'none', reason: 'the payer already initiated this payment' }
        : onMerchantCancel(current.status),
      set: { failureCode: 'payment_cancelled', failureReason: 'Cancelled by the merchant.' },
      detail: { by: 'merchant' },
    }),
    requestId,
  );
  if (result.outcome === 'missing') throw paymentNotFound();
  if (result.outcome === 'unchanged') {
    throw appError(
      'invalid_state',
      `Only PENDING payments not yet initiated can be cancelled; this one cannot (${result.reason}).`,
    );
  }
  return result.payment;
}

/** The payer cancelled the payment's hosted checkout session: anything not settled is cancelled. */
export async function cancelForPayer(
  deps: Deps,
  request: { token: string; checkoutSessionId?: string },
  requestId: string,
): Promise<Payment> {
  const payment = await findPaymentByToken(deps.db, request.token);
  if (!payment || (request.checkoutSessionId && payment.checkoutSessionId !== request.checkoutSessionId))
    throw paymentNotFound();
  const result = await transition(
    deps,
    payment.id,
    (current) => ({
      decision: onPayerCancel(current.status),
      set: { failureCode: 'payment_cancelled', failureReason: 'Cancelled by the payer.' },
    }),
    requestId,
  );
  if (result.outcome === 'missing') throw paymentNotFound();
  if (result.outcome === 'unchanged')
    throw appError('invalid_state', `This payment cannot be cancelled (${result.reason}).`);
  return result.payment;
}
