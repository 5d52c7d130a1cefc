import type { PaymentSnapshot } from '@mmp/protocol';
import { MOVES_BY_EVENT } from '../domain/session-state.js';
import { findSession, moveSession, paymentIsOrNone, type SessionDoc } from '../store/sessions.js';
import type { Deps } from '../deps.js';
import { countLinkUse, releaseLinkUse } from './link-uses.js';
import { insertSessionOfPayment } from './sessions.js';

/** A payment that ends without money moving gives its link's held use back. */
const ENDS_WITHOUT_PAYING = new Set(['payment.failed', 'payment.expired', 'payment.cancelled']);

/**
 * Events of a payment under way or paid, whose payer may be on its page: a session not
 * opened yet is made from the event. An end without money needs none (a page opened later
 * asks payments, and shows that end).
 */
const OPENS_SESSION = new Set(['payment.initiated', 'payment.processing', 'payment.completed']);

/**
 * What a payment's event means for its session (named by `checkoutSessionId`) and its link
 * use. The session moves by compare-and-set, so a replayed or late event changes nothing; a
 * session that has not learnt its payment yet (its pay's answer was lost) learns it here,
 * since payments makes one payment per session.
 */
export async function followPayment(deps: Deps, type: string, payment: PaymentSnapshot): Promise<void> {
  const sessionId = payment.checkoutSessionId;
  const move = MOVES_BY_EVENT[type];
  if (!sessionId || !move) return;
  const completed = type === 'payment.completed';
  const changes: Partial<SessionDoc> = {
    paymentId: payment.id,
    paymentToken: payment.token,
    paymentStatus: payment.status,
    updatedAt: deps.now(),
  };
  if (type === 'payment.failed') {
    changes.failureCode = payment.failureCode ?? 'payment_failed';
    changes.failureReason = payment.failureReason;
  }
  if (payment.paymentMethod !== 'UNKNOWN') changes.paymentMethod = payment.paymentMethod;
  // Money moved: a completion is kept even from a payment the session does not know as its own.
  const moveIt = () =>
    moveSession(
      deps.db,
      sessionId,
      move.from,
      move.to,
      changes,
      completed ? {} : paymentIsOrNone(payment.id),
    );
  let session = (await moveIt()) ?? (await findSession(deps.db, sessionId));
  if (!session) {
    if (!OPENS_SESSION.has(type)) return;
    // A page opening at this moment may store the session from an older answer of payments
    // first: then it is moved like any other.
    const opened = await insertSessionOfPayment(deps, payment);
    session = (opened ? null : await moveIt()) ?? (await findSession(deps.db, sessionId));
  }
  // Whether or not the session moved (a replay, a session the page cancelled first), the end
  // of its payment decides its link use; both writes are guarded, so repeating them is safe.
  if (!session?.linkId || (!completed && session.paymentId !== payment.id)) return;
  if (completed) await countLinkUse(deps, session.linkId, sessionId);
  else if (ENDS_WITHOUT_PAYING.has(type)) await releaseLinkUse(deps, session.linkId, sessionId);
}
