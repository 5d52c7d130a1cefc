import type { Operation } from '@mmp/platform';
import {
  appError,
  isAppError,
  networksFor,
  normalizePhone,
  phoneMatchesNetwork,
  validationMessage,
  type Network,
  type PaymentSnapshot,
} from '@mmp/protocol';
import { CANCELLABLE_STATES, nextExpiry } from '../domain/session-state.js';
import { COUNTRIES_BY_CURRENCY, defaultCountry, operatorsFor } from '../domain/operators.js';
import type { SessionDoc } from '../store/collections.js';
import type { Deps } from './deps.js';
import { holdLinkUse, releaseLinkUse } from './link-uses.js';
import { PaySessionBody, parseBody } from './schemas.js';
import { endRecovery, expireIfDue, findSession, moveSession, stateError } from './session-store.js';
import { sessionUrl, toSessionStatus } from './views.js';

const invalidPhone = (message: string) => appError('invalid_phone', message, [{ field: 'phone', message }]);

/** The number in E.164, refused unless it can pay this currency with this operator. */
function checkPhone(currency: string, network: Network, raw: string): string {
  if (!operatorsFor(currency).includes(network)) {
    const fields = [{ field: 'paymentMethod', message: `${network} is not available for ${currency}` }];
    throw appError('validation_error', validationMessage(fields), fields);
  }
  const phone = normalizePhone(raw, defaultCountry(currency));
  if (!phone) throw invalidPhone('phone is not a valid phone number.');
  const countries = COUNTRIES_BY_CURRENCY[currency] ?? [];
  if (!countries.includes(phone.country) || !networksFor(phone.country, currency).includes(network)) {
    throw invalidPhone(`This number cannot pay in ${currency} with ${network}.`);
  }
  if (!phoneMatchesNetwork(phone.e164, network))
    throw invalidPhone(`This number does not belong to ${network}.`);
  return phone.e164;
}

/** The session's own payment, created on first use for merchant and link sessions. */
async function ensurePayment(deps: Deps, session: SessionDoc, requestId: string): Promise<SessionDoc> {
  if (session.paymentToken) return session;
  const payment = await deps.services.command<PaymentSnapshot>(
    'payments',
    'create-for-session',
    {
      checkoutSessionId: session._id,
      projectId: session.projectId,
      livemode: session.livemode,
      amount: session.amount,
      currency: session.currency,
      description: session.description,
      returnUrl: session.successUrl,
      cancelUrl: session.cancelUrl,
      paymentUrl: sessionUrl(deps.settings.publicUrl, session._id),
      customer: { ...session.customer, phone: session.customer.phone ?? session.phone },
      metadata: { ...session.metadata, ...session.customFields },
    },
    { requestId },
  );
  const updated = await deps.db.sessions.findOneAndUpdate(
    { _id: session._id, status: 'processing' },
    {
      $set: {
        paymentId: payment.id,
        paymentToken: payment.token,
        paymentStatus: payment.status,
        updatedAt: deps.now(),
      },
    },
  );
  if (!updated) throw stateError((await findSession(deps, session._id)).status);
  return updated;
}

/**
 * Whether a refused initiation leaves no payment under way: a clear refusal (a 4xx other
 * than invalid_state, which may mean the payment is already moving). After a timeout or an
 * outage the payment may exist: its own end settles the link use, or, when payments never
 * made it, the recovery loop does (handlers/recovery.ts).
 */
function nothingUnderWay(error: unknown): boolean {
  return isAppError(error) && error.status < 500 && error.code !== 'invalid_state';
}

/**
 * What a refused initiation means for the session: the payment's end, or back to the form.
 * A clear refusal settles the attempt; an unclear one leaves it to the recovery loop.
 */
async function settleRefusal(deps: Deps, session: SessionDoc, error: unknown): Promise<void> {
  const settled = nothingUnderWay(error);
  if (session.linkId && settled) await releaseLinkUse(deps, session.linkId, session._id);
  const code = isAppError(error) ? error.code : null;
  const to = code === 'payment_expired' ? 'expired' : code === 'payment_cancelled' ? 'cancelled' : 'idle';
  await moveSession(deps, session._id, 'processing', to, {}, settled);
}

export function payOperations(deps: Deps): Record<string, Operation> {
  return {
    'sessions.pay': async (request, { requestId, log }) => {
      const found = await findSession(deps, request.params.id);
      const body = parseBody(PaySessionBody, request.body);
      const phone = checkPhone(found.currency, body.paymentMethod, body.phone);
      const session = await expireIfDue(deps, found);
      if (session.status !== 'idle') throw stateError(session.status);
      const now = deps.now();
      // The one writer that wins idle → processing pays; a second click gets invalid_state.
      // The claim also dates the attempt's recovery, in the same write: should this process
      // or payments fail before the outcome is known, the recovery loop settles it.
      const claimed = await moveSession(deps, session._id, 'idle', 'processing', {
        paymentMethod: body.paymentMethod,
        phone,
        failureCode: null,
        failureReason: null,
        expiresAt: nextExpiry(now, deps.settings.sessionTtlSeconds, session.hardExpiresAt),
        recoverAt: new Date(now.getTime() + deps.settings.recoveryAfterMs).toISOString(),
      });
      if (!claimed) throw stateError((await findSession(deps, session._id)).status);
      if (claimed.linkId) {
        // Refused here, the session may still hold a use from an earlier unclear attempt:
        // then its recovery stays, to give that use back if no payment was made; otherwise
        // nothing is left to check.
        await holdLinkUse(deps, claimed.linkId, claimed._id).catch(async (error: unknown) => {
          await moveSession(deps, claimed._id, 'processing', 'idle', {}, !session.recoverAt);
          throw error;
        });
      }
      try {
        const withPayment = await ensurePayment(deps, claimed, requestId);
        await deps.services.command(
          'payments',
          'initiate',
          { token: withPayment.paymentToken, paymentMethod: body.paymentMethod, phone },
          { requestId },
        );
      } catch (error) {
        log.info({ err: error, sessionId: session._id }, 'payment initiation refused');
        await settleRefusal(deps, claimed, error);
        throw error;
      }
      // Initiated: the payment exists, and its events settle the session and the link use.
      await endRecovery(deps, claimed._id, claimed.recoverAt);
      return { status: 200, body: toSessionStatus(await findSession(deps, session._id)) };
    },

    'sessions.cancel': async (request, { requestId, log }) => {
      const session = await expireIfDue(deps, await findSession(deps, request.params.id));
      if (!CANCELLABLE_STATES.includes(session.status)) throw stateError(session.status);
      const cancelled = await moveSession(deps, session._id, CANCELLABLE_STATES, 'cancelled');
      if (!cancelled) throw stateError((await findSession(deps, session._id)).status);
      if (cancelled.paymentToken) {
        // Best effort: a payment the payer already confirmed still completes, and the
        // session follows it to success; one that is never confirmed expires on its own.
        await deps.services
          .command(
            'payments',
            'cancel-for-session',
            { token: cancelled.paymentToken, checkoutSessionId: cancelled._id },
            { requestId },
          )
          .catch((error: unknown) =>
            log.warn({ err: error, sessionId: cancelled._id }, 'payment not cancelled with the session'),
          );
      }
      return { status: 200, body: toSessionStatus(cancelled) };
    },
  };
}
