import { PaymentSnapshot, isAppError } from '@mmp/protocol';
import { NOT_STARTED, STUCK_STATES, planRecovery } from '../domain/recovery.js';
import { findDueRecoveries, type SessionDoc } from '../store/collections.js';
import type { Deps } from './deps.js';
import { releaseLinkUse } from './link-uses.js';
import { applyPaymentOutcome } from './payment-events.js';
import { endRecovery } from './session-store.js';

/** Attempts checked per round; a backlog drains over the next rounds. */
const BATCH = 100;

type DueSession = SessionDoc & { recoverAt: string };

/**
 * The session's payment as payments has it, or null when it has none. Asked by token when
 * the session knows it, else by session: `create-for-session` makes one payment per session,
 * so "none" means the attempt never made it. Payments being away throws service_unavailable.
 */
async function lookUpPayment(deps: Deps, session: SessionDoc): Promise<PaymentSnapshot | null> {
  const body = session.paymentToken ? { token: session.paymentToken } : { checkoutSessionId: session._id };
  try {
    return PaymentSnapshot.parse(await deps.services.command('payments', 'retrieve-internal', body));
  } catch (error) {
    if (isAppError(error) && error.code === 'resource_not_found') return null;
    throw error;
  }
}

/**
 * No payment was made: the held use goes back and the payer may try again. A payer can
 * claim an idle session at any moment and reuse its held use, so an idle session is first
 * claimed here as a pay would (idle → processing), then the use is released, then the
 * session returns to the form and its recovery ends, each step guarded on this attempt's
 * `recoverAt`. A crash between steps leaves the attempt due: the next round repeats them,
 * and each repeated step changes nothing. Final states (expired, cancelled) are never
 * claimed by a pay, so their use is released as they are.
 */
async function giveBack(deps: Deps, session: DueSession): Promise<void> {
  const { _id, recoverAt } = session;
  const wasIdle = session.status === 'idle';
  if (wasIdle) {
    const claimed = await deps.db.sessions.findOneAndUpdate(
      { _id, recoverAt, status: 'idle' },
      { $set: { status: 'processing', updatedAt: deps.now() } },
    );
    // A payer or the expiry sweep moved it first: the next round reads it again.
    if (!claimed) return;
  }
  if (session.linkId) await releaseLinkUse(deps, session.linkId, _id);
  const returned = await deps.db.sessions.findOneAndUpdate(
    { _id, recoverAt, status: { $in: STUCK_STATES } },
    {
      // A session this loop claimed was idle: it goes back as it was. One a lost attempt left
      // in processing learns why it is on the form again.
      $set: { status: 'idle', updatedAt: deps.now(), ...(wasIdle ? {} : NOT_STARTED) },
      $unset: { recoverAt: true },
    },
  );
  if (!returned) await endRecovery(deps, _id, recoverAt);
}

/** The payment exists: the session learns it (if the attempt was lost before it could). */
async function adoptPayment(deps: Deps, session: DueSession, payment: PaymentSnapshot): Promise<void> {
  await deps.db.sessions.findOneAndUpdate(
    { _id: session._id, paymentId: null },
    {
      $set: {
        paymentId: payment.id,
        paymentToken: payment.token,
        paymentStatus: payment.status,
        updatedAt: deps.now(),
      },
    },
  );
}

/** Settles one due attempt from payments' answer; throws when payments cannot answer. */
async function recoverAttempt(deps: Deps, session: DueSession): Promise<void> {
  const payment = await lookUpPayment(deps, session);
  const plan = planRecovery(session.status, payment);
  if (plan.kind === 'no_payment' || !payment) return giveBack(deps, session);
  await adoptPayment(deps, session, payment);
  if (plan.kind === 'ended') await applyPaymentOutcome(deps, plan.eventType, payment);
  if (plan.kind === 'open' && plan.backToForm) {
    await deps.db.sessions.findOneAndUpdate(
      { _id: session._id, recoverAt: session.recoverAt, status: 'processing' },
      { $set: { status: 'idle', updatedAt: deps.now() } },
    );
  }
  await endRecovery(deps, session._id, session.recoverAt);
}

/**
 * One round: every attempt due by now, oldest first. While payments is away nothing can be
 * known, so the round stops and every attempt (and its held use) waits for the next one.
 * An attempt that fails otherwise is logged and checked again a bound later, so it never
 * holds up the others.
 */
export async function recoverOnce(deps: Deps): Promise<number> {
  const due = (await findDueRecoveries(deps.db, deps.now(), BATCH)) as DueSession[];
  let settled = 0;
  for (const session of due) {
    try {
      await recoverAttempt(deps, session);
      settled += 1;
    } catch (error) {
      if (isAppError(error) && error.code === 'service_unavailable') {
        deps.log.warn({ due: due.length }, 'payments unavailable; lost pay attempts wait for the next round');
        break;
      }
      deps.log.warn({ err: error, sessionId: session._id }, 'pay attempt not recovered; checked again later');
      await deps.db.sessions.findOneAndUpdate(
        { _id: session._id, recoverAt: session.recoverAt },
        { $set: { recoverAt: new Date(deps.now().getTime() + deps.settings.recoveryAfterMs).toISOString() } },
      );
    }
  }
  return settled;
}
