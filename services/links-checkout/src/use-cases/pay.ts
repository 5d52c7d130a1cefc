import { isAppError, paymentsForCheckout, type Network, type PaymentSnapshot } from '@mmp/protocol';
import { ATTEMPTED_STATES, CANCELLABLE_STATES, nextExpiry } from '../domain/session-state.js';
import { payerPhone } from '../domain/operators.js';
import {
  adoptPayment,
  claimAttempt,
  endAttempt,
  findSession,
  moveSession,
  type SessionDoc,
} from '../store/sessions.js';
import type { Deps } from '../deps.js';
import { checkLinkUse, holdLinkUse, releaseLinkUse } from './link-uses.js';
import { currentSession, stateError } from './sessions.js';

/** What the payer chose on the page: an operator, and a number as they typed it. */
export type PayerChoice = { paymentMethod: Network; phone: string };

/** The session's one payment: made by payments on the session's first pay, the same one after. */
async function paymentOf(deps: Deps, session: SessionDoc, requestId: string): Promise<string> {
  if (session.paymentToken) return session.paymentToken;
  const payment: PaymentSnapshot = await deps.bus.request(
    paymentsForCheckout.createForSession,
    {
      checkoutSessionId: session._id,
      projectId: session.projectId,
      livemode: session.livemode,
      amount: session.amount,
      currency: session.currency,
      description: session.description,
      returnUrl: session.successUrl,
      cancelUrl: session.cancelUrl,
      customer: { ...session.customer, phone: session.customer.phone ?? session.phone },
      metadata: { ...session.metadata, ...session.customFields },
    },
    { requestId },
  );
  const known = { paymentId: payment.id, paymentToken: payment.token, paymentStatus: payment.status };
  await adoptPayment(deps.db, session._id, known, deps.now());
  return payment.token;
}

/**
 * Where a failed attempt leaves the session. A clear refusal of the initiation (a 4xx other
 * than invalid_state, which may mean the payment is already moving) says nothing is under
 * way: the held use goes back at once. Any other failure keeps it, since the payment may
 * have been initiated: its own end gives the use back (at the latest when it expires), and
 * its `payment.initiated` takes the session out of the form.
 */
async function endFailedAttempt(
  deps: Deps,
  session: SessionDoc,
  attemptUntil: string,
  error: unknown,
  initiating: boolean,
): Promise<void> {
  const clear = isAppError(error) && error.status < 500 && error.code !== 'invalid_state';
  if (session.linkId && initiating && clear) await releaseLinkUse(deps, session.linkId, session._id);
  const code = isAppError(error) ? error.code : null;
  const to = code === 'payment_expired' ? 'expired' : code === 'payment_cancelled' ? 'cancelled' : 'idle';
  await moveSession(deps.db, session._id, ['processing'], to, { updatedAt: deps.now() }, { attemptUntil });
}

/**
 * A same-key retry of the pay that claimed this session, with the same choice, after that pay
 * took effect: its answer was lost on the way (a timeout while payments was slow, a gateway
 * crash), so the retry gets the session as the first pay left it, not a 409.
 */
function isRetryOfClaimingPay(session: SessionDoc, choice: PayerChoice, phone: string, key?: string) {
  return (
    key !== undefined &&
    session.payKey === key &&
    session.paymentToken !== null &&
    ATTEMPTED_STATES.includes(session.status) &&
    session.paymentMethod === choice.paymentMethod &&
    session.phone === phone
  );
}

/**
 * The payer pays the session with an operator and a number. The session is claimed for one
 * attempt (idle → processing; a second click gets invalid_state), its payment made (or found)
 * by payments, a use of its link held (only once a payment exists, so every hold ends with
 * that payment), and the payment initiated. Every call to payments is idempotent, so an
 * answer lost on the way leaves the session on the form to try again, and nothing twice.
 */
export async function paySession(
  deps: Deps,
  sessionId: string | undefined,
  choice: PayerChoice,
  requestId: string,
  key?: string,
): Promise<SessionDoc> {
  const session = await currentSession(deps, sessionId);
  const phone = payerPhone(session.currency, choice.paymentMethod, choice.phone);
  if (isRetryOfClaimingPay(session, choice, phone, key)) return session;
  if (session.status !== 'idle') throw stateError(session.status);
  const now = deps.now();
  const attemptUntil = new Date(now.getTime() + deps.settings.attemptMs).toISOString();
  const claimed = await claimAttempt(deps.db, session._id, {
    paymentMethod: choice.paymentMethod,
    phone,
    failureCode: null,
    failureReason: null,
    expiresAt: nextExpiry(now, deps.settings.sessionTtlSeconds, session.hardExpiresAt),
    updatedAt: now,
    attemptUntil,
    ...(key === undefined ? {} : { payKey: key }),
  });
  if (!claimed) throw stateError((await currentSession(deps, session._id)).status);
  let initiating = false;
  try {
    // The link is checked before a payment is made for it, then held once the payment exists.
    if (claimed.linkId) await checkLinkUse(deps, claimed.linkId, claimed._id);
    const token = await paymentOf(deps, claimed, requestId);
    if (claimed.linkId) {
      await holdLinkUse(deps, claimed.linkId, claimed._id);
      // The payment may have ended meanwhile (its event gave back whatever was held then).
      const current = await findSession(deps.db, claimed._id);
      if (current?.status !== 'processing' || current.attemptUntil !== attemptUntil) {
        await releaseLinkUse(deps, claimed.linkId, claimed._id);
        throw stateError(current?.status ?? 'expired');
      }
    }
    initiating = true;
    await deps.bus.request(
      paymentsForCheckout.initiate,
      { token, paymentMethod: choice.paymentMethod, phone },
      { requestId },
    );
  } catch (error) {
    deps.log.info({ err: error, sessionId: claimed._id }, 'payment initiation refused');
    await endFailedAttempt(deps, claimed, attemptUntil, error, initiating);
    throw error;
  }
  // Initiated: the payment's events settle the session and the link use from now on.
  await endAttempt(deps.db, claimed._id, attemptUntil);
  return (await findSession(deps.db, claimed._id)) ?? claimed;
}

/**
 * The payer gives up. Best effort for the payment: one the payer already confirmed still
 * completes, and the session follows it to success; one never confirmed expires on its own.
 */
export async function cancelSession(deps: Deps, sessionId: string | undefined, requestId: string) {
  const session = await currentSession(deps, sessionId);
  if (!CANCELLABLE_STATES.includes(session.status)) throw stateError(session.status);
  const cancelled = await moveSession(deps.db, session._id, CANCELLABLE_STATES, 'cancelled', {
    updatedAt: deps.now(),
  });
  if (!cancelled) throw stateError((await currentSession(deps, session._id)).status);
  if (cancelled.paymentToken) {
    await deps.bus
      .request(
        paymentsForCheckout.cancelForSession,
        { token: cancelled.paymentToken, checkoutSessionId: cancelled._id },
        { requestId },
      )
      .catch((error: unknown) =>
        deps.log.warn({ err: error, sessionId: cancelled._id }, 'payment not cancelled with the session'),
      );
  }
  return cancelled;
}
