import { DuplicateKeyError, type Collection, type Filter, type Outbox } from '@mmp/platform';
import { LIST_TOTAL_CAP, type PendingEvent } from '@mmp/protocol';
import {
  accountId,
  emptyAccount,
  entryDocId,
  type Account,
  type AccountScope,
  type KeyedEntry,
  type LedgerEntry,
  type LedgerEntryDoc,
} from '../domain/ledger.js';
import type { Payout, Refund } from '../domain/transfer.js';
import type { PaymentsDb } from './db.js';
import { countCapped, readPage, type ListTotal, type Page, type PageCursor } from './pages.js';
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

/** What an entry does to its account's figures, or why it may not apply now. */
export type AccountChange<R> = { inc: Record<string, number> } | { refused: R };

export type EntryOutcome<R> =
  | { outcome: 'applied' }
  | { outcome: 'already' }
  | { outcome: 'refused'; refused: R }
  | { outcome: 'missing' };

const APPLY_ATTEMPTS = 200;

function findEntry(db: PaymentsDb, scope: AccountScope, key: string): Promise<LedgerEntryDoc | null> {
  return db.ledgerEntries.findOne({ _id: entryDocId(accountId(scope), key) });
}

/** Writes an applied entry as its own document; a second writer of the same entry changes nothing. */
async function recordEntry(db: PaymentsDb, account: Account, entry: KeyedEntry): Promise<void> {
  try {
    await db.ledgerEntries.insertOne({
      ...entry,
      _id: entryDocId(account._id, entry.key),
      accountId: account._id,
      appliedVersion: account.version,
    });
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
}

/**
 * Applies `entry` to its account once, with its events: a compare-and-set on the account's
 * version that also names the entry as the account's last, then the entry's own document.
 * Each step first records the entry the account names, so every entry applied before the
 * version a step read is on record by then: an entry found on record was applied, and one
 * not found cannot have been (docs/decisions.md, "Ledger entries"). `decide` sees the
 * account as read and says what the entry changes, or refuses it; `after` names an entry
 * that must be applied first (a debit before its outcome).
 */
export async function applyEntry<R>(
  deps: Writer,
  scope: AccountScope,
  entry: KeyedEntry,
  decide: (account: Account) => AccountChange<R>,
  events: PendingEvent[],
  options: { requestId?: string; after?: string } = {},
): Promise<EntryOutcome<R>> {
  for (let attempt = 0; attempt < APPLY_ATTEMPTS; attempt += 1) {
    const account = await ensureAccount(deps.db, scope, entry.at);
    // Usually already on record: a read is cheaper than an insert refused as a duplicate.
    if (account.lastEntry && !(await findEntry(deps.db, scope, account.lastEntry.key)))
      await recordEntry(deps.db, account, account.lastEntry);
    if (await findEntry(deps.db, scope, entry.key)) return { outcome: 'already' };
    if (options.after && !(await findEntry(deps.db, scope, options.after))) return { outcome: 'missing' };
    const change = decide(account);
    if ('refused' in change) return { outcome: 'refused', refused: change.refused };
    const applied = await deps.outbox.update(
      deps.db.accounts,
      { _id: account._id, version: account.version },
      { $set: { lastEntry: entry, updatedAt: entry.at }, $inc: { ...change.inc, version: 1 } },
      events,
      options.requestId,
    );
    if (!applied) continue;
    await recordEntry(deps.db, applied, entry);
    return { outcome: 'applied' };
  }
  throw new Error(`account ${accountId(scope)} kept changing under concurrent entries`);
}

/**
 * Accounts written before entries had documents of their own kept every entry in an
 * `entries` map, which grew with every payment: each becomes a document, then the map goes.
 */
export async function moveEmbeddedEntries(db: PaymentsDb): Promise<number> {
  type Legacy = Account & { entries?: Record<string, LedgerEntry> };
  const legacy = (await db.accounts.find({ entries: { $exists: true } })) as Legacy[];
  for (const account of legacy) {
    for (const [key, entry] of Object.entries(account.entries ?? {}))
      await recordEntry(db, account, { ...entry, key });
    await db.accounts.updateMany(
      { _id: account._id },
      { $unset: { entries: true }, $set: { lastEntry: null } },
    );
  }
  return legacy.length;
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

export type PayoutPage = Page<Payout> & ListTotal;

/** Newest first (createdAt, then id), like the payments list; cursors are payout ids of the scope. */
export async function listPayouts(
  db: PaymentsDb,
  scope: Scope,
  query: PayoutFilter,
  cursor: PageCursor<Payout>,
  totalCap = LIST_TOTAL_CAP,
): Promise<PayoutPage> {
  const and: Filter[] = [{ projectId: scope.projectId, livemode: scope.livemode }];
  if (query.status) and.push({ status: query.status });
  if (query.currency) and.push({ currency: query.currency });
  if (query.network) and.push({ network: query.network });
  const base: Filter = { $and: and };
  const total = await countCapped(db.payouts, base, totalCap);
  return { ...(await readPage(db.payouts, base, cursor, query)), ...total };
}

/** Moves a transfer record out of PENDING once; null when it was moved already. */
export function endTransferRecord<T extends Refund | Payout>(
  collection: PaymentsDb['refunds'] | PaymentsDb['payouts'],
  id: string,
  set: Pick<T, 'status' | 'failureCode' | 'failureMessage' | 'completedAt' | 'updatedAt'>,
): Promise<T | null> {
  return collection.findOneAndUpdate({ _id: id, status: 'PENDING' }, { $set: set }) as Promise<T | null>;
}
