import type { ServiceReply } from '@mmp/protocol';
import type { Payment } from '../domain/payment.js';
import type { Deps } from '../deps.js';
import type { IdempotentWork } from '../store/idempotency.js';
import { findPaymentByToken, type Scope } from '../store/payments.js';
import { paymentNotFound } from '../use-cases/initiate.js';
import { idempotencyKeyOf } from './input.js';

/** The project and environment a merchant's key acts in. */
export const scopeOf = (actor: Scope): Scope => ({ projectId: actor.projectId, livemode: actor.livemode });

/** A payment of the merchant's project and environment; any other is not found. */
export async function merchantPayment(deps: Deps, token: string | undefined, scope: Scope): Promise<Payment> {
  const payment = token ? await findPaymentByToken(deps.db, token, scope) : null;
  if (!payment) throw paymentNotFound();
  return payment;
}

/**
 * A merchant's write, once per Idempotency-Key of its operation, project and environment: a
 * retry with the key gets the first answer, and one with another `payload` a conflict.
 */
export function onceByIdempotencyKey(
  deps: Deps,
  operation: string,
  request: { headers: Record<string, string> },
  scope: Scope,
  payload: unknown,
  work: IdempotentWork,
): Promise<ServiceReply> {
  return deps.idempotency.run({ operation, ...scope }, idempotencyKeyOf(request.headers), payload, work);
}
