import { DuplicateKeyError } from '@mmp/platform';
import {
  CheckoutSessionId,
  appError,
  isAppError,
  newCheckoutSessionId,
  paymentsForCheckout,
  type Currency,
  type CustomerContact,
  type PaymentSnapshot,
} from '@mmp/protocol';
import {
  ATTEMPT_LOST,
  nextExpiry,
  stateOfPayment,
  type SessionOrigin,
  type SessionState,
} from '../domain/session-state.js';
import { adoptPayment, findSession, insertSession, moveSession, type SessionDoc } from '../store/sessions.js';
import type { Deps } from '../deps.js';

export type NewSession = {
  projectId: string;
  livemode: boolean;
  origin: Exclude<SessionOrigin, 'payment'>;
  amount: number;
  currency: Currency;
  description?: string | null;
  successUrl?: string | null;
  cancelUrl?: string | null;
  customer?: Partial<CustomerContact> | null;
  customFields?: Record<string, string>;
  metadata?: SessionDoc['metadata'];
  linkId?: string | null;
};

/** A session of a link or of a merchant: its payment is made when the payer first pays. */
export function buildSession(deps: Pick<Deps, 'now' | 'settings'>, input: NewSession): SessionDoc {
  const now = deps.now();
  return {
    _id: newCheckoutSessionId(),
    projectId: input.projectId,
    livemode: input.livemode,
    origin: input.origin,
    linkId: input.linkId ?? null,
    paymentId: null,
    paymentToken: null,
    paymentStatus: null,
    amount: input.amount,
    currency: input.currency,
    description: input.description ?? null,
    successUrl: input.successUrl ?? null,
    cancelUrl: input.cancelUrl ?? null,
    customer: {
      email: input.customer?.email ?? null,
      phone: input.customer?.phone ?? null,
      name: input.customer?.name ?? null,
    },
    customFields: input.customFields ?? {},
    metadata: input.metadata ?? {},
    status: 'idle',
    paymentMethod: null,
    phone: null,
    failureCode: null,
    failureReason: null,
    expiresAt: nextExpiry(now, deps.settings.sessionTtlSeconds),
    hardExpiresAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The session of a merchant's payment, in the state its payment is in now. */
function sessionOfPayment(deps: Pick<Deps, 'now' | 'settings'>, payment: PaymentSnapshot): SessionDoc {
  const now = deps.now();
  const hardExpiresAt = payment.expiresAt ? new Date(payment.expiresAt) : null;
  const status = stateOfPayment(payment);
  return {
    _id: payment.checkoutSessionId ?? newCheckoutSessionId(),
    projectId: payment.projectId,
    livemode: payment.livemode,
    origin: 'payment',
    linkId: null,
    paymentId: payment.id,
    paymentToken: payment.token,
    paymentStatus: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    description: payment.description,
    successUrl: payment.returnUrl,
    cancelUrl: payment.cancelUrl,
    customer: { email: payment.payerEmail, phone: payment.payerPhone, name: payment.payerName },
    customFields: {},
    metadata: {},
    status,
    paymentMethod: payment.paymentMethod === 'UNKNOWN' ? null : payment.paymentMethod,
    phone: null,
    failureCode: status === 'failed' ? payment.failureCode : null,
    failureReason: status === 'failed' ? payment.failureReason : null,
    expiresAt: nextExpiry(now, deps.settings.sessionTtlSeconds, hardExpiresAt),
    hardExpiresAt,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Stores the session of a merchant's payment in the state its snapshot says; false when a
 * session of that id exists already (another writer came first), which is left as it is.
 */
export async function insertSessionOfPayment(deps: Deps, payment: PaymentSnapshot): Promise<boolean> {
  try {
    await insertSession(deps.db, sessionOfPayment(deps, payment));
    return true;
  } catch (error) {
    if (error instanceof DuplicateKeyError) return false;
    throw error;
  }
}

/**
 * The hosted session of a payment, made once whoever comes first: the payer opening the page,
 * or an event of the payment under way. A session of this service's own only learns of its
 * payment. Repeating it changes nothing.
 */
export async function openSessionOfPayment(deps: Deps, payment: PaymentSnapshot): Promise<SessionDoc | null> {
  const id = payment.checkoutSessionId;
  if (!id) return null;
  const existing = await findSession(deps.db, id);
  if (existing) {
    if (existing.paymentId) return existing;
    const known = { paymentId: payment.id, paymentToken: payment.token, paymentStatus: payment.status };
    await adoptPayment(deps.db, id, known, deps.now());
  } else {
    await insertSessionOfPayment(deps, payment);
  }
  return findSession(deps.db, id);
}

export const sessionNotFound = () => appError('resource_not_found', 'No checkout session with this id.');

/**
 * A session by id. One this service has not made yet may be a merchant's payment whose page
 * no one opened before: payments is asked, and the session made from its answer. Payments being away answers service_unavailable, never a wrong 404.
 */
async function sessionById(deps: Deps, id: string | undefined): Promise<SessionDoc> {
  const stored = id ? await findSession(deps.db, id) : null;
  if (stored) return stored;
  if (!CheckoutSessionId.safeParse(id).success) throw sessionNotFound();
  let payment: PaymentSnapshot;
  try {
    payment = await deps.bus.request(paymentsForCheckout.retrieve, { checkoutSessionId: id! });
  } catch (error) {
    if (isAppError(error) && error.code === 'resource_not_found') throw sessionNotFound();
    throw error;
  }
  const opened = await openSessionOfPayment(deps, payment);
  if (!opened) throw sessionNotFound();
  return opened;
}

/** A pay attempt whose process died (past its `attemptUntil`) leaves the session on the form. */
async function returnLostAttempt(deps: Deps, session: SessionDoc): Promise<SessionDoc> {
  const { attemptUntil } = session;
  if (session.status !== 'processing' || !attemptUntil || new Date(attemptUntil) > deps.now()) return session;
  const changes = { ...ATTEMPT_LOST, updatedAt: deps.now() };
  const moved = await moveSession(deps.db, session._id, ['processing'], 'idle', changes, { attemptUntil });
  return moved ?? (await findSession(deps.db, session._id)) ?? session;
}

/**
 * An idle session past its date is expired, whether or not the sweep has come by. Sessions
 * with a payment under way follow the payment's own events.
 */
async function expireIfDue(deps: Deps, session: SessionDoc): Promise<SessionDoc> {
  if (session.status !== 'idle' || session.expiresAt > deps.now()) return session;
  const moved = await moveSession(deps.db, session._id, ['idle'], 'expired', { updatedAt: deps.now() });
  return moved ?? (await findSession(deps.db, session._id)) ?? session;
}

/** A session as it stands now, for a read or an action of the payer. */
export async function currentSession(deps: Deps, id: string | undefined): Promise<SessionDoc> {
  return expireIfDue(deps, await returnLostAttempt(deps, await sessionById(deps, id)));
}

/** The documented error for acting on a session that is not waiting for a payment. */
export function stateError(status: SessionState) {
  if (status === 'expired') return appError('payment_expired', 'This checkout session has expired.');
  if (status === 'cancelled') return appError('payment_cancelled', 'This checkout session was cancelled.');
  if (status === 'success') return appError('invalid_state', 'This checkout session is already paid.');
  if (status === 'failed')
    return appError('invalid_state', 'The payment of this checkout session failed; start a new one.');
  return appError('invalid_state', 'A payment is already in progress for this checkout session.');
}
