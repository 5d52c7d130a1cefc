import { DuplicateKeyError, type Collection, type Filter, type Outbox, type Update } from '@mmp/platform';
import type { PendingEvent } from '@mmp/protocol';
import {
  accountId,
  emptyAccount,
  entryKey,
  type Account,
  type AccountScope,
  type LedgerEntry,
} from '../domain/ledger.js';
import type { Payout, Refund } from '../domain/transfer.js';
import type { PaymentsDb } from './db.js';
import type { Scope } from './payments.js';

type Writer = { db: PaymentsDb; outbox: Outbox };

export function findAccount(db: PaymentsDb, scope: AccountScope): Promise<Account | null> {
  return db.accounts.findOne({ _id: accountId(scope) });
}

/** The account of a scope, made empty on first use (two first uses make one). */
export async function ensureAccount(db: PaymentsDb, scope: AccountScope, at: string): Promise<Account> {
  const found = await findAccount(db, scope);
  if (found) return found;
  try {
    await db.accounts.insertOne(emptyAccount(scope, at));
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
  return (await findAccount(db, scope))!;
}

export function accountsOf(db: PaymentsDb, scope: Scope): Promise<Account[]> {
  return db.accounts.find(
    { projectId: scope.projectId, livemode: scope.livemode },
    { sort: { currency: 1 } },
  );
}

/**
 * Enters a completed payment once (the entry's absence is the guard), with its events.
 * Null when it was entered already.
 */
export function creditPayment(
  deps: Writer,
  scope: AccountScope,
  entry: LedgerEntry,
  events: PendingEvent[],
  requestId?: string,
): Promise<Account | null> {
  const key = entryKey(entry.kind, entry.sourceId);
  return deps.outbox.update(
    deps.db.accounts,
    { _id: accountId(scope), [`entries.${key}`]: { $exists: false } },
    {
      $set: { [`entries.${key}`]: entry, updatedAt: entry.at },
      $inc: { available: entry.amount, version: 1 },
    },
    events,
    requestId,
  );
}

/**
 * Debits a refund or payout in one compare-and-set: only while the balance covers it, only
 * once per transfer and, for a refund, only while its payment's refunds stay within
 * `paymentAmount`. Its `transfer.requested` event is written in the same step. Null when a
 * guard failed: read the account again and decide again.
 */
export function debitTransfer(
  deps: Writer,
  scope: AccountScope,
  entry: LedgerEntry,
  paymentAmount: number | null,
  events: PendingEvent[],
  requestId?: string,
): Promise<Account | null> {
  const key = entryKey(entry.kind, entry.sourceId);
  const amount = -entry.amount;
  const filter: Filter = {
    _id: accountId(scope),
    available: { $gte: amount },
    [`entries.${key}`]: { $exists: false },
  };
  const inc: Record<string, number> = { available: entry.amount, pending: amount, version: 1 };
  if (entry.paymentId && paymentAmount !== null) {
    const field = `refunded.${entry.paymentId}`;
    filter.$or = [{ [field]: { $exists: false } }, { [field]: { $lte: paymentAmount - amount } }];
    inc[field] = amount;
  }
  return deps.outbox.update(
    deps.db.accounts,
    filter,
    { $set: { [`entries.${key}`]: entry, updatedAt: entry.at }, $inc: inc },
    events,
    requestId,
  );
}

/**
 * Ends an in-flight debit once: COMPLETED leaves the money out; FAILED gives it back with a
 * reversal entry (and, for a refund, to what its payment may still refund).
 */
export function settleDebit(
  deps: Writer,
  scope: AccountScope,
  debit: Pick<LedgerEntry, 'kind' | 'sourceId' | 'paymentId' | 'amount'>,
  state: 'COMPLETED' | 'FAILED',
  at: string,
  events: PendingEvent[],
  requestId?: string,
): Promise<Account | null> {
  const key = entryKey(debit.kind, debit.sourceId);
  const amount = -debit.amount;
  const update: Update = {
    $set: { [`entries.${key}.state`]: state, updatedAt: at },
    $inc: { pending: -amount, version: 1 },
  };
  if (state === 'FAILED') {
    const reversal: LedgerEntry = {
      kind: 'reversal',
      sourceId: debit.sourceId,
      paymentId: debit.paymentId,
      amount,
      state: null,
      at,
    };
    update.$set![`entries.${entryKey('reversal', debit.sourceId)}`] = reversal;
    update.$inc!.available = amount;
    if (debit.paymentId) update.$inc![`refunded.${debit.paymentId}`] = -amount;
  }
  return deps.outbox.update(
    deps.db.accounts,
    { _id: accountId(scope), [`entries.${key}.state`]: 'PENDING' },
    update,
    events,
    requestId,
  );
}

export async function insertRefund(db: PaymentsDb, refund: Refund): Promise<void> {
  await db.refunds.insertOne(refund);
}

export function findRefund(db: PaymentsDb, id: string): Promise<Refund | null> {
  return db.refunds.findOne({ _id: id });
}

export function refundsOfPayment(db: PaymentsDb, paymentId: string): Promise<Refund[]> {
  return db.refunds.find({ paymentId }, { sort: { createdAt: -1, id: -1 } });
}

export async function insertPayout(db: PaymentsDb, payout: Payout): Promise<void> {
  await db.payouts.insertOne(payout);
}

export function findPayout(db: PaymentsDb, id: string, scope?: Scope): Promise<Payout | null> {
  return db.payouts.findOne(
    scope ? { _id: id, projectId: scope.projectId, livemode: scope.livemode } : { _id: id },
  );
}

/** The refund or payout the first attempt with an Idempotency-Key inserted, if it got that far. */
export function findTransferOfIdempotencyKey<T extends Refund | Payout>(
  collection: Collection<T>,
  idempotencyId: string,
): Promise<T | null> {
  return collection.findOne({ idempotencyId });
}

/** Records inserted but never debited (a crash between the two), older than `before`. */
export function undebitedRefunds(db: PaymentsDb, before: string): Promise<Refund[]> {
  return db.refunds.find({ debited: false, createdAt: { $lt: before } }, { limit: 100 });
}

export function undebitedPayouts(db: PaymentsDb, before: string): Promise<Payout[]> {
  return db.payouts.find({ debited: false, createdAt: { $lt: before } }, { limit: 100 });
}

export type PayoutFilter = {
  status?: string;
  currency?: string;
  network?: string;
  limit: number;
  page: number;
};

export type PayoutPage = { items: Payout[]; hasMore: boolean; total: number };

/** Newest first (createdAt, then id), like the payments list; cursors are payout ids of the scope. */
export async function listPayouts(
  db: PaymentsDb,
  scope: Scope,
  query: PayoutFilter,
  cursor: { after?: Payout; before?: Payout },
): Promise<PayoutPage> {
  const and: Filter[] = [{ projectId: scope.projectId, livemode: scope.livemode }];
  if (query.status) and.push({ status: query.status });
  if (query.currency) and.push({ currency: query.currency });
  if (query.network) and.push({ network: query.network });
  const base: Filter = { $and: and };
  const total = await db.payouts.count(base);
  const limit = query.limit;
  if (cursor.after) {
    const { createdAt, id } = cursor.after;
    const rows = await db.payouts.find(
      { $and: [base, { $or: [{ createdAt: { $lt: createdAt } }, { createdAt, id: { $lt: id } }] }] },
      { sort: { createdAt: -1, id: -1 }, limit: limit + 1 },
    );
    return { items: rows.slice(0, limit), hasMore: rows.length > limit, total };
  }
  if (cursor.before) {
    const { createdAt, id } = cursor.before;
    const rows = await db.payouts.find(
      { $and: [base, { $or: [{ createdAt: { $gt: createdAt } }, { createdAt, id: { $gt: id } }] }] },
      { sort: { createdAt: 1, id: 1 }, limit: limit + 1 },
    );
    return { items: rows.slice(0, limit).reverse(), hasMore: rows.length > limit, total };
  }
  const rows = await db.payouts.find(base, {
    sort: { createdAt: -1, id: -1 },
    skip: (query.page - 1) * limit,
    limit: limit + 1,
  });
  return { items: rows.slice(0, limit), hasMore: rows.length > limit, total };
}

/** Moves a transfer record out of PENDING once; null when it was moved already. */
export function endTransferRecord<T extends Refund | Payout>(
  collection: PaymentsDb['refunds'] | PaymentsDb['payouts'],
  id: string,
  set: Pick<T, 'status' | 'failureCode' | 'failureMessage' | 'completedAt' | 'updatedAt'>,
): Promise<T | null> {
  return collection.findOneAndUpdate({ _id: id, status: 'PENDING' }, { $set: set }) as Promise<T | null>;
}
