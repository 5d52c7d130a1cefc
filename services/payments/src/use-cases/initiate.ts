import {
  appError,
  networksFor,
  normalizePhone,
  phoneMatchesNetwork,
  type Network,
  type NormalizedPhone,
} from '@mmp/protocol';
import { OPEN_STATUSES } from '../domain/lifecycle.js';
import type { Payment } from '../domain/payment.js';
import type { TimelineEntry } from '../domain/timeline.js';
import { findPaymentById, findPaymentByToken, writeInitiation } from '../store/payments.js';
import type { Deps } from '../deps.js';
import { expirePayment } from './expire.js';
import { initiatedEvent } from './transition.js';

export const paymentNotFound = () => appError('resource_not_found', 'No such payment.');

/** Why a payment cannot be initiated, in the order a payer would want to hear it. */
async function refuseUnlessInitiable(deps: Deps, payment: Payment, requestId: string): Promise<void> {
  if (payment.status === 'CANCELLED') throw appError('payment_cancelled', 'This payment was cancelled.');
  if (payment.status === 'EXPIRED') throw appError('payment_expired', 'This payment has expired.');
  if (OPEN_STATUSES.includes(payment.status) && new Date(payment.expiresAt) <= deps.now()) {
    await expirePayment(deps, payment, requestId);
    throw appError('payment_expired', 'This payment has expired.');
  }
  if (payment.status !== 'PENDING' || payment.initiatedAt) {
    throw appError(
      'invalid_state',
      `This payment is already ${payment.initiatedAt && payment.status === 'PENDING' ? 'being executed' : payment.status}; it cannot be initiated again.`,
    );
  }
}

function checkPhone(phone: string, network: Network, currency: string): NormalizedPhone {
  const normalized = normalizePhone(phone, currency === 'XAF' ? 'CM' : undefined);
  if (!normalized)
    throw appError(
      'invalid_phone',
      'The phone number is not valid; use the international format, e.g. +237690000001.',
    );
  if (!phoneMatchesNetwork(normalized.e164, network)) {
    throw appError('invalid_phone', `The phone number ${normalized.e164} does not belong to ${network}.`);
  }
  if (!networksFor(normalized.country, currency).includes(network)) {
    throw appError(
      'invalid_phone',
      `${network} payments in ${currency} are not available for numbers of ${normalized.country}.`,
    );
  }
  return normalized;
}

/**
 * This very choice was made already and the payment is still under way (an answer the caller
 * lost, a second click): the same payment answers again, and nothing is executed twice.
 */
function alreadyInitiatedWith(payment: Payment, network: Network, raw: string): boolean {
  if (!payment.initiatedAt || payment.paymentMethod !== network) return false;
  if (!OPEN_STATUSES.includes(payment.status)) return false;
  const phone = normalizePhone(raw, payment.currency === 'XAF' ? 'CM' : undefined);
  return phone?.e164 === payment.payerPhone;
}

/**
 * The payer chose an operator and a number: the payment records them with its
 * `payment.initiated` event, which provider-router routes. Asked again with the same choice,
 * it answers the payment as it is; with another, it refuses (one order per payment).
 */
export async function initiatePayment(
  deps: Deps,
  request: { token: string; paymentMethod: Network; phone: string },
  requestId: string,
): Promise<Payment> {
  const payment = await findPaymentByToken(deps.db, request.token);
  if (!payment) throw paymentNotFound();
  if (alreadyInitiatedWith(payment, request.paymentMethod, request.phone)) return payment;
  await refuseUnlessInitiable(deps, payment, requestId);
  const phone = checkPhone(request.phone, request.paymentMethod, payment.currency);
  const at = deps.now().toISOString();
  const set = {
    payerPhone: phone.e164,
    paymentMethod: request.paymentMethod,
    initiatedAt: at,
    updatedAt: at,
  };
  const event = initiatedEvent({ ...payment, ...set }, at, {
    network: request.paymentMethod,
    phone: phone.e164,
    country: phone.country,
  });
  const entry: TimelineEntry = { id: event.id, type: event.type, status: 'PENDING', at };
  const updated = await writeInitiation(deps, payment, set, entry, event, requestId);
  if (updated) return updated;
  // Another initiation (or a move) won the write: the same choice gets its answer.
  const current = await findPaymentById(deps.db, payment.id);
  if (current && alreadyInitiatedWith(current, request.paymentMethod, request.phone)) return current;
  if (current) await refuseUnlessInitiable(deps, current, requestId);
  throw appError(
    'invalid_state',
    'This payment changed while it was being initiated; it cannot be initiated again.',
  );
}
