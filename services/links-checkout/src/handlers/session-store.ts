import { appError } from '@mmp/protocol';
import type { SessionState } from '../domain/session-state.js';
import type { SessionDoc } from '../store/collections.js';
import type { Deps } from './deps.js';

export async function findSession(deps: Deps, id: string | undefined): Promise<SessionDoc> {
  const session = id ? await deps.db.sessions.findOne({ _id: id }) : null;
  if (!session) throw appError('resource_not_found', 'No checkout session with this id.');
  return session;
}

/**
 * Compare-and-set of the session's state; null when another writer moved it first. With
 * `settled`, the move also ends the pay attempt's recovery (its outcome is known).
 */
export function moveSession(
  deps: Deps,
  id: string,
  from: SessionState | SessionState[],
  to: SessionState,
  changes: Partial<SessionDoc> = {},
  settled = false,
): Promise<SessionDoc | null> {
  const guard = Array.isArray(from) ? { $in: from } : from;
  return deps.db.sessions.findOneAndUpdate(
    { _id: id, status: guard },
    {
      $set: { ...changes, status: to, updatedAt: deps.now() },
      ...(settled && { $unset: { recoverAt: true as const } }),
    },
  );
}

/**
 * The outcome of the attempt that set `recoverAt` is known: no check is needed. Guarded on
 * that attempt's date, so a newer attempt of the session keeps its own.
 */
export async function endRecovery(deps: Deps, id: string, recoverAt: string | undefined): Promise<void> {
  if (!recoverAt) return;
  await deps.db.sessions.findOneAndUpdate({ _id: id, recoverAt }, { $unset: { recoverAt: true } });
}

/**
 * An idle session past its date is expired, whether or not the sweep has come by yet.
 * Sessions with a payment under way follow the payment's own expiry (payment.expired).
 */
export async function expireIfDue(deps: Deps, session: SessionDoc): Promise<SessionDoc> {
  if (session.status !== 'idle' || session.expiresAt > deps.now()) return session;
  return (await moveSession(deps, session._id, 'idle', 'expired')) ?? (await findSession(deps, session._id));
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
