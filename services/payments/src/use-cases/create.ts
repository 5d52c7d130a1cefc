import { DuplicateKeyError } from '@mmp/platform';
import {
  AMOUNT_RANGE_MESSAGE,
  appError,
  checkoutPageUrl,
  isAmountInRange,
  newCheckoutSessionId,
  newPaymentToken,
  normalizePhone,
  uuid,
  type CreatePaymentBody,
  type CreatePaymentForSession,
} from '@mmp/protocol';
import type { Payment } from '../domain/payment.js';
import {
  findPaymentOfIdempotencyKey,
  findPaymentOfSession,
  referenceKeyOf,
  type Scope,
} from '../store/payments.js';
import type { ClaimedKey } from '../store/idempotency.js';
import type { Deps } from '../deps.js';
import { createdEvent } from './transition.js';

/** What a new payment is made of, whoever asked for it. */
type NewPayment = Pick<
  Payment,
  | 'amount'
  | 'currency'
  | 'description'
  | 'reference'
  | 'returnUrl'
  | 'cancelUrl'
  | 'userId'
  | 'customerId'
  | 'customer'
  | 'metadata'
  | 'idempotencyId'
> & {
  scope: Scope;
  /** The hosted page's session: minted for a merchant's payment, or the session that asked. */
  checkoutSessionId: string;
};

function customerOf(input: CreatePaymentBody['customer'] | CreatePaymentForSession['customer']) {
  if (!input) return null;
  return { email: input.email ?? null, phone: input.phone ?? null, name: input.name ?? null };
}

function buildPayment(deps: Deps, input: NewPayment): Payment {
  const now = deps.now();
  const at = now.toISOString();
  const { scope, customer } = input;
  const id = uuid();
  const expiresAt = new Date(now.getTime() + deps.settings.paymentTtlSeconds * 1000).toISOString();
  const phone = customer?.phone ? (normalizePhone(customer.phone, 'CM')?.e164 ?? customer.phone) : null;
  return {
    _id: id,
    id,
    token: newPaymentToken(),
    projectId: scope.projectId,
    livemode: scope.livemode,
    reference: input.reference,
    ...(input.reference ? { referenceKey: referenceKeyOf(scope, input.reference) } : {}),
    amount: input.amount,
    currency: input.currency,
    status: 'PENDING',
    paymentMethod: 'UNKNOWN',
    paymentUrl: checkoutPageUrl(deps.settings.publicUrl, input.checkoutSessionId),
    payerPhone: phone,
    payerName: customer?.name ?? null,
    payerEmail: customer?.email ?? null,
    description: input.description,
    returnUrl: input.returnUrl,
    cancelUrl: input.cancelUrl,
    userId: input.userId,
    customerId: input.customerId,
    customer,
    metadata: input.metadata,
    checkoutSessionId: input.checkoutSessionId,
    sessionKey: input.checkoutSessionId,
    idempotencyId: input.idempotencyId,
    failureCode: null,
    failureReason: null,
    refundedAmount: 0,
    appliedSettlements: [],
    initiatedAt: null,
    expiresAt,
    openUntil: expiresAt,
    createdAt: at,
    updatedAt: at,
    completedAt: null,
    timeline: [],
    version: 0,
  };
}

/**
 * Stores the payment with its `payment.created` event in one write. Its hosted page needs
 * nothing more: links-checkout opens that session from payments when the payer first comes.
 */
async function insertPayment(deps: Deps, draft: Payment, requestId: string): Promise<Payment> {
  const event = createdEvent(draft);
  const payment: Payment = {
    ...draft,
    timeline: [{ id: event.id, type: event.type, status: 'PENDING', at: draft.createdAt }],
  };
  await deps.outbox.insert(deps.db.payments, payment, [event], requestId);
  return payment;
}

/**
 * A merchant's payment, with the id of its hosted page's session minted here: nothing is
 * asked of links-checkout, which opens the session when the payer first comes (asking payments).
 * `idempotencyId` names the merchant's Idempotency-Key; `recovering` says a holder of that key
 * crashed after storing the payment but before answering, so the payment it stored is the answer.
 */
export async function createMerchantPayment(
  deps: Deps,
  scope: Scope,
  body: CreatePaymentBody,
  key: ClaimedKey,
  requestId: string,
): Promise<Payment> {
  const earlier =
    key.recovering && key.idempotencyId
      ? await findPaymentOfIdempotencyKey(deps.db, key.idempotencyId)
      : null;
  if (earlier) return earlier;
  const draft = buildPayment(deps, {
    scope,
    amount: body.amount,
    currency: body.currency,
    description: body.description ?? null,
    reference: body.reference ?? null,
    returnUrl: body.returnUrl ?? null,
    cancelUrl: body.cancelUrl ?? null,
    userId: body.userId?.toLowerCase() ?? null,
    customerId: body.customerId ?? null,
    customer: customerOf(body.customer),
    metadata: body.metadata ?? {},
    checkoutSessionId: newCheckoutSessionId(),
    idempotencyId: key.idempotencyId,
  });
  // The reference's unique index refuses a duplicate as the payment is stored, which spares
  // every create a read; the token and session key are fresh, so a clash is the reference.
  try {
    return await insertPayment(deps, draft, requestId);
  } catch (error) {
    if (error instanceof DuplicateKeyError)
      throw appError('duplicate_transaction', `A payment with reference '${body.reference}' already exists.`);
    throw error;
  }
}

/**
 * The one payment of a link's or a merchant's checkout session: made on the session's first
 * pay, and the same one whenever the session asks again (a lost answer, a second click).
 */
export async function createPaymentForSession(
  deps: Deps,
  request: CreatePaymentForSession,
  requestId: string,
): Promise<Payment> {
  if (!isAmountInRange(request.amount)) throw appError('invalid_amount', AMOUNT_RANGE_MESSAGE);
  const existing = await findPaymentOfSession(deps.db, request.checkoutSessionId);
  if (existing) return existing;
  const draft = buildPayment(deps, {
    scope: { projectId: request.projectId, livemode: request.livemode },
    amount: request.amount,
    currency: request.currency,
    description: request.description ?? null,
    reference: null,
    returnUrl: request.returnUrl ?? null,
    cancelUrl: request.cancelUrl ?? null,
    userId: null,
    customerId: request.customerId ?? null,
    customer: customerOf(request.customer),
    metadata: request.metadata ?? {},
    checkoutSessionId: request.checkoutSessionId,
    idempotencyId: null,
  });
  try {
    return await insertPayment(deps, draft, requestId);
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    // The same session asked twice at once: both get the one payment.
    const winner = await findPaymentOfSession(deps.db, request.checkoutSessionId);
    if (!winner) throw error;
    return winner;
  }
}
