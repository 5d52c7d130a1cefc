import { updateIfUnchanged, type Filter, type Outbox } from '@mmp/platform';
import { LIST_TOTAL_CAP, type PendingEvent } from '@mmp/protocol';
import type { Payment } from '../domain/payment.js';
import type { TimelineEntry } from '../domain/timeline.js';
import { OPEN_STATUSES } from '../domain/lifecycle.js';
import type { PaymentsDb } from './db.js';
import { countCapped, readPage, type ListTotal, type Page, type PageCursor } from './pages.js';

/** A validated list query, dates as UTC ISO strings comparable with `createdAt`. */
export type PaymentListFilter = {
  limit: number;
  page: number;
  status?: string;
  paymentMethod?: string;
  currency?: string;
  minAmount?: number;
  maxAmount?: number;
  startDate?: string;
  endDate?: string;
  search?: string;
};

/** Project and environment of the caller: every merchant query is confined to both. */
export type Scope = { projectId: string; livemode: boolean };

export function referenceKeyOf(scope: Scope, reference: string): string {
  return `${scope.projectId}:${scope.livemode ? 'live' : 'test'}:${reference}`;
}

export function findPaymentByToken(db: PaymentsDb, token: string, scope?: Scope): Promise<Payment | null> {
  return db.payments.findOne(
    scope ? { token, projectId: scope.projectId, livemode: scope.livemode } : { token },
  );
}

/** The one payment of a checkout session, through its unique `sessionKey`. */
export function findPaymentOfSession(db: PaymentsDb, checkoutSessionId: string): Promise<Payment | null> {
  return db.payments.findOne({ sessionKey: checkoutSessionId });
}

export function findPaymentById(db: PaymentsDb, id: string): Promise<Payment | null> {
  return db.payments.findOne({ _id: id });
}

/** Only open payments carry `openUntil`, so its index holds the open ones, not the history. */
export function expiredOpenPaymentsFilter(now: Date): Filter {
  return { openUntil: { $lte: now.toISOString() } };
}

/** Open payments past their deadline, oldest first, through the sparse `openUntil` index. */
export function findExpiredOpenPayments(db: PaymentsDb, now: Date, limit: number): Promise<Payment[]> {
  return db.payments.find(expiredOpenPaymentsFilter(now), { sort: { openUntil: 1 }, limit });
}

/**
 * Gives `openUntil` to open payments stored before it existed, so an upgrade mid-window
 * still expires them. Guarded on the version read, like every payment write.
 */
export async function backfillOpenUntil(db: PaymentsDb): Promise<number> {
  const missing = await db.payments.find({
    status: { $in: [...OPEN_STATUSES] },
    openUntil: { $exists: false },
  });
  let filled = 0;
  for (const payment of missing) {
    const updated = await db.payments.findOneAndUpdate(
      { _id: payment._id, version: payment.version },
      { $set: { openUntil: payment.expiresAt } },
    );
    if (updated) filled += 1;
  }
  return filled;
}

/**
 * Adds an entry that changes no state, guarded on the version read: null when the payment
 * changed meanwhile (read again and decide again).
 */
export function appendTimelineEntry(
  db: PaymentsDb,
  payment: Payment,
  entry: TimelineEntry,
  at: string,
): Promise<Payment | null> {
  return updateIfUnchanged(db.payments, payment, ['version'], {
    $set: { updatedAt: at },
    $push: { timeline: { $each: [entry] } },
    $inc: { version: 1 },
  });
}

/**
 * Records a contradiction that changes no state, with the settlement that raised it (so it
 * is recorded once), guarded on the version read: null when the payment changed meanwhile.
 */
export function recordAnomaly(
  db: PaymentsDb,
  payment: Payment,
  entry: TimelineEntry,
  settlementId: string | undefined,
): Promise<Payment | null> {
  const applied = settlementId ? { appliedSettlements: [...payment.appliedSettlements, settlementId] } : {};
  return db.payments.findOneAndUpdate(
    { _id: payment._id, status: payment.status, version: payment.version },
    {
      $set: { ...applied, updatedAt: entry.at },
      $push: { timeline: { $each: [entry] } },
      $inc: { version: 1 },
    },
  );
}

/** The payment stored by a merchant's key whose holder crashed before answering. */
export function findPaymentOfIdempotencyKey(db: PaymentsDb, idempotencyId: string): Promise<Payment | null> {
  return db.payments.findOne({ idempotencyId });
}

/**
 * Records the payer's choice on a PENDING payment never initiated (the version read guards
 * it too), with its `payment.initiated` event: of two concurrent initiations, one writes.
 */
export function writeInitiation(
  deps: { db: PaymentsDb; outbox: Outbox },
  payment: Payment,
  set: Pick<Payment, 'payerPhone' | 'paymentMethod' | 'initiatedAt' | 'updatedAt'>,
  entry: TimelineEntry,
  event: PendingEvent,
  requestId: string,
): Promise<Payment | null> {
  return deps.outbox.update(
    deps.db.payments,
    { _id: payment._id, status: 'PENDING', initiatedAt: null, version: payment.version },
    { $set: set, $push: { timeline: { $each: [entry] } }, $inc: { version: 1 } },
    [event],
    requestId,
  );
}

export function findPaymentsOfUser(
  db: PaymentsDb,
  scope: Scope,
  userId: string,
  limit: number,
): Promise<Payment[]> {
  return db.payments.find(
    { projectId: scope.projectId, livemode: scope.livemode, userId },
    { sort: { createdAt: -1, id: -1 }, limit },
  );
}

function listFilter(scope: Scope, query: PaymentListFilter): Filter {
  const and: Filter[] = [{ projectId: scope.projectId, livemode: scope.livemode }];
  if (query.status) and.push({ status: query.status });
  if (query.paymentMethod) and.push({ paymentMethod: query.paymentMethod });
  if (query.currency) and.push({ currency: query.currency });
  if (query.minAmount !== undefined) and.push({ amount: { $gte: query.minAmount } });
  if (query.maxAmount !== undefined) and.push({ amount: { $lte: query.maxAmount } });
  if (query.startDate) and.push({ createdAt: { $gte: query.startDate } });
  if (query.endDate) and.push({ createdAt: { $lte: query.endDate } });
  if (query.search) {
    const text = query.search;
    and.push({
      $or: [
        { reference: { $contains: text } },
        { token: { $contains: text } },
        { payerPhone: { $contains: text } },
        { payerName: { $contains: text } },
      ],
    });
  }
  return { $and: and };
}

export type PaymentPage = Page<Payment> & ListTotal;

/**
 * Lists newest first (createdAt, then id, both descending). A cursor is the id of a payment
 * of the same scope; `ending_before` reads backwards and returns the page in list order.
 */
export async function listPayments(
  db: PaymentsDb,
  scope: Scope,
  query: PaymentListFilter,
  cursor: PageCursor<Payment>,
  totalCap = LIST_TOTAL_CAP,
): Promise<PaymentPage> {
  const base = listFilter(scope, query);
  const total = await countCapped(db.payments, base, totalCap);
  return { ...(await readPage(db.payments, base, cursor, query)), ...total };
}
