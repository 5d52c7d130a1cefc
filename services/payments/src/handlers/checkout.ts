import type { OperationHandler } from '@mmp/platform';
import type { paymentsForCheckout } from '@mmp/protocol';
import { toSnapshot } from '../domain/payment.js';
import { findPaymentById, findPaymentByToken, findPaymentOfSession } from '../store/payments.js';
import type { Deps } from '../deps.js';
import { cancelForPayer } from '../use-cases/cancel.js';
import { createPaymentForSession } from '../use-cases/create.js';
import { initiatePayment, paymentNotFound } from '../use-cases/initiate.js';

type Api = typeof paymentsForCheckout;

/** What links-checkout asks on a payer's behalf (it calls payments; payments never calls it). */
export function checkoutHandlers(deps: Deps) {
  const createForSession: OperationHandler<Api['createForSession']> = async (request, { requestId }) =>
    toSnapshot(await createPaymentForSession(deps, request, requestId));

  const initiate: OperationHandler<Api['initiate']> = async (request, { requestId }) => ({
    payment: toSnapshot(await initiatePayment(deps, request, requestId)),
  });

  /**
   * By token, id or checkout session: links-checkout asks by session when a payer opens a
   * session whose `payment.created` it has not consumed yet.
   */
  const retrieve: OperationHandler<Api['retrieve']> = async (request) => {
    const payment =
      'token' in request
        ? await findPaymentByToken(deps.db, request.token)
        : 'id' in request
          ? await findPaymentById(deps.db, request.id)
          : await findPaymentOfSession(deps.db, request.checkoutSessionId);
    if (!payment) throw paymentNotFound();
    return toSnapshot(payment);
  };

  const cancelForSession: OperationHandler<Api['cancelForSession']> = async (request, { requestId }) =>
    toSnapshot(await cancelForPayer(deps, request, requestId));

  return { createForSession, initiate, retrieve, cancelForSession };
}
