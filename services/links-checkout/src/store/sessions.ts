import type { Collection } from '@mmp/platform';
import type { Currency, CustomerContact } from '@mmp/protocol';
import type { SessionOrigin, SessionState } from '../domain/session-state.js';

export type SessionDoc = {
  /** For a merchant's payment, the id payments minted (its paymentUrl names it). */
  _id: string;
  projectId: string;
  livemode: boolean;
  origin: SessionOrigin;
  linkId: string | null;
  paymentId: string | null;
  paymentToken: string | null;
  paymentStatus: string | null;
  amount: number;
  currency: Currency;
  description: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  customer: CustomerContact;
  customFields: Record<string, string>;
  /** The merchant's metadata, or a link's id and code: flat values, carried onto the payment. */
  metadata: Record<string, string | number | boolean>;
  status: SessionState;
  paymentMethod: string | null;
  phone: string | null;
  failureCode: string | null;
  failureReason: string | null;
  expiresAt: Date;
  /** A session of a payment never outlives the payment's own expiry. */
  hardExpiresAt: Date | null;
  /**
   * While a pay attempt is under way (the session in `processing`, its calls to payments not
   * answered yet), until when it may still be: past it, the attempt's process died and the
   * session goes back to the form. Removed when the attempt ends, or when payment.initiated
   * says the payment is under way. An ISO 8601 string, compared as one.
   */
  attemptUntil?: string;
  /**
   * The Idempotency-Key of the pay that claimed the session, if it sent one: its retry is told
   * the attempt's outcome, even when the first answer was lost (a 503 that hid a success).
   */
  payKey?: string;
  createdAt: Date;
  updatedAt: Date;
};

/** What the queries below work on: the service's checkout sessions (`LinksCheckoutDb` is one). */
export type SessionsDb = { sessions: Collection<SessionDoc> };

/** A payment as a session records it. */
export type SessionPayment = Pick<SessionDoc, 'paymentId' | 'paymentToken' | 'paymentStatus'>;

export function insertSession(db: SessionsDb, session: SessionDoc): Promise<void> {
  return db.sessions.insertOne(session);
}

export function findSession(db: SessionsDb, id: string): Promise<SessionDoc | null> {
  return db.sessions.findOne({ _id: id });
}

/** What else a move requires of the session: its attempt, or its payment (or none yet). */
export type MoveGuard = {
  attemptUntil?: string;
  paymentId?: string | { $in: (string | null)[] };
};

/** The session's payment is `paymentId`, or it has not learnt of one yet. */
export const paymentIsOrNone = (paymentId: string): MoveGuard => ({ paymentId: { $in: [paymentId, null] } });

/**
 * Compare-and-set of the session's state from one of `from`, with `changes`; null when
 * another writer moved it first. Any pay attempt ends with the move.
 */
export function moveSession(
  db: SessionsDb,
  id: string,
  from: readonly SessionState[],
  to: SessionState,
  changes: Partial<SessionDoc>,
  guard: MoveGuard = {},
): Promise<SessionDoc | null> {
  return db.sessions.findOneAndUpdate(
    { _id: id, status: { $in: [...from] }, ...guard },
    { $set: { ...changes, status: to }, $unset: { attemptUntil: true } },
  );
}

/** Claims an idle session for one pay attempt (idle → processing), dated by `attemptUntil`. */
export function claimAttempt(
  db: SessionsDb,
  id: string,
  changes: Partial<SessionDoc> & { attemptUntil: string },
): Promise<SessionDoc | null> {
  return db.sessions.findOneAndUpdate(
    { _id: id, status: 'idle' },
    { $set: { ...changes, status: 'processing' } },
  );
}

/** The attempt dated `attemptUntil` is over, its payment initiated: the session stays in processing. */
export async function endAttempt(db: SessionsDb, id: string, attemptUntil: string): Promise<void> {
  await db.sessions.findOneAndUpdate({ _id: id, attemptUntil }, { $unset: { attemptUntil: true } });
}

/** The session learns its payment, unless it knows one already. */
export async function adoptPayment(
  db: SessionsDb,
  id: string,
  payment: SessionPayment,
  at: Date,
): Promise<void> {
  await db.sessions.findOneAndUpdate({ _id: id, paymentId: null }, { $set: { ...payment, updatedAt: at } });
}

/** How many sessions of the link were paid: its counted uses. */
export function countPaidSessions(db: SessionsDb, linkId: string): Promise<number> {
  return db.sessions.count({ linkId, status: 'success' });
}

/**
 * Sessions past their date within `due` that no payment holds: idle ones, and those whose
 * pay attempt died with its process (they never learnt of a payment under way).
 */
export function expireDueSessions(db: SessionsDb, due: Record<string, Date>, now: Date): Promise<number> {
  return db.sessions.updateMany(
    {
      expiresAt: due,
      $or: [{ status: 'idle' }, { status: 'processing', attemptUntil: { $exists: true } }],
    },
    { $set: { status: 'expired', updatedAt: now }, $unset: { attemptUntil: true } },
  );
}
