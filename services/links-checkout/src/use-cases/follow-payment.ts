import type { PaymentSnapshot } from '@mmp/protocol';
import { MOVES_BY_EVENT } from '../domain/session-state.js';
import { findSession, moveSession, type SessionDoc } from '../store/sessions.js';
import type { Deps } from '../deps.js';
import { countLinkUse, releaseLinkUse } from './link-uses.js';
import { openSessionOfPayment } from './sessions.js';

/** A payment that ends without money moving gives its link's held use back. */
const ENDS_WITHOUT_PAYING = new Set(['payment.failed', 'payment.expired', 'payment.cancelled']);

/**
 * What a payment's event means for its session (named by `checkoutSessionId`) and its link
 * use. `payment.created` makes the hosted session of a merchant's payment, or tells a link's
 * or merchant's session which payment it has; every other event moves the session by
 * compare-and-set, so a replayed or late event changes nothing.
 */
export async function followPayment(deps: Deps, type: string, payment: PaymentSnapshot): Promise<void> {
  const sessionId = payment.checkoutSessionId;
  if (!sessionId) return;
  if (type === 'payment.created') {
    await openSessionOfPayment(deps, payment);
    return;
  }
  const move = MOVES_BY_EVENT[type];
  if (!move) return;
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
  const moved = await moveSession(
    deps.db,
    sessionId,
    move.from,
    move.to,
    changes,
    completed ? {} : { paymentId: payment.id },
  );
  const session = moved ?? (await findSession(deps.db, sessionId));
  // Whether or not the session moved (a replay, a session the page cancelled first), the end
  // of its payment decides its link use; both writes are guarded, so repeating them is safe.
  if (!session?.linkId || (!completed && session.paymentId !== payment.id)) return;
  if (completed) await countLinkUse(deps, session.linkId, sessionId);
  else if (ENDS_WITHOUT_PAYING.has(type)) await releaseLinkUse(deps, session.linkId, sessionId);
}
