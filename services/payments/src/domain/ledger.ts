import type { Currency } from '@mmp/protocol';

/**
 * The ledger of one project, environment and currency: what a merchant may send out.
 * Every completed payment is a credit; every refund and payout a debit from the moment it
 * is requested (in flight it is `pending`), reversed by a credit of its own when it fails.
 * The account holds the figures and every change to them is a compare-and-set on its
 * version, so the gate and the debit are one step: two requests can never spend the same
 * balance. Each entry is its own document, written right after the step that applied it;
 * the account names the last entry it applied until the next step records it, which is how
 * an entry is known applied, and applied once, without a transaction (docs/decisions.md).
 */
export type LedgerEntryKind = 'payment' | 'refund' | 'payout' | 'reversal' | 'completion';
export type TransferState = 'PENDING' | 'COMPLETED' | 'FAILED';

export type LedgerEntry = {
  kind: LedgerEntryKind;
  /** What the entry explains: the payment id, the refund's rf_… or the payout's po_…. */
  sourceId: string;
  /** The payment a refund (or its reversal) gives back. */
  paymentId: string | null;
  /** Signed: credits positive, debits negative. */
  amount: number;
  at: string;
};

/** An entry with its key (see entryKey): unique within its account. */
export type KeyedEntry = LedgerEntry & { key: string };

/** An applied entry as stored, apart from its account. */
export type LedgerEntryDoc = KeyedEntry & {
  _id: string;
  accountId: string;
  /** The account's version once the entry was applied. */
  appliedVersion: number;
};

export type Account = {
  _id: string;
  projectId: string;
  livemode: boolean;
  currency: Currency;
  /** Sum of every entry's amount. */
  available: number;
  /** Debits still in flight (their amount, positive). */
  pending: number;
  /** Per payment, what its refunds took (in flight and completed): never above its amount. */
  refunded: Record<string, number>;
  /**
   * The entry the last step applied, until a later step has recorded it as a document of
   * its own: a crash between the two leaves it here, never lost.
   */
  lastEntry: KeyedEntry | null;
  version: number;
  createdAt: string;
  updatedAt: string;
};

export type AccountScope = { projectId: string; livemode: boolean; currency: Currency };

export function accountId(scope: AccountScope): string {
  return `${scope.projectId}:${scope.livemode ? 'live' : 'test'}:${scope.currency}`;
}

/** The key of an entry: its kind and source, so each source is entered once per kind. */
export function entryKey(kind: LedgerEntryKind, sourceId: string): string {
  return `${kind}_${sourceId}`.replaceAll('.', '_');
}

/** The key of a debit's outcome (a completion or a reversal): one outcome per debit. */
export function outcomeKey(sourceId: string): string {
  return `outcome_${sourceId}`.replaceAll('.', '_');
}

export function entryDocId(accountIdOfEntry: string, key: string): string {
  return `${accountIdOfEntry}:${key}`;
}

export function emptyAccount(scope: AccountScope, at: string): Account {
  return {
    _id: accountId(scope),
    ...scope,
    available: 0,
    pending: 0,
    refunded: {},
    lastEntry: null,
    version: 0,
    createdAt: at,
    updatedAt: at,
  };
}

export type RefundGate =
  | { ok: true; amount: number }
  | { ok: false; reason: 'nothing_left' | 'above_remaining' | 'insufficient_balance'; remaining: number };

/**
 * Whether a refund of `requested` (all that remains when undefined) of a payment of
 * `paymentAmount` may be debited from `account` now.
 */
export function refundGate(
  account: Pick<Account, 'available' | 'refunded'>,
  paymentId: string,
  paymentAmount: number,
  requested: number | undefined,
): RefundGate {
  const remaining = paymentAmount - (account.refunded[paymentId] ?? 0);
  if (remaining <= 0) return { ok: false, reason: 'nothing_left', remaining: 0 };
  const amount = requested ?? remaining;
  if (amount > remaining) return { ok: false, reason: 'above_remaining', remaining };
  if (amount > account.available) return { ok: false, reason: 'insufficient_balance', remaining };
  return { ok: true, amount };
}

export function payoutGate(account: Pick<Account, 'available'>, amount: number): boolean {
  return amount <= account.available;
}

/** What the event stream says of one account: the figures a rebuild compares with the live ones. */
export type ReplayedFigures = { available: number; pending: number; entries: number };

/**
 * Rebuilds the figures of every account from the stream: `payment.completed` credits (once
 * per payment), `transfer.requested` debits (once per transfer), `transfer.settled` ends the
 * debit (once), giving a FAILED one back. The same rules as the live account, applied to the
 * events alone.
 */
export function createLedgerReplay() {
  const accounts = new Map<string, ReplayedFigures>();
  const credited = new Set<string>();
  const transfers = new Map<string, { account: string; amount: number; ended: boolean }>();
  const figures = (id: string) => {
    let found = accounts.get(id);
    if (!found) accounts.set(id, (found = { available: 0, pending: 0, entries: 0 }));
    return found;
  };
  return {
    completed(payment: { id: string; amount: number } & AccountScope) {
      if (credited.has(payment.id)) return;
      credited.add(payment.id);
      const account = figures(accountId(payment));
      account.available += payment.amount;
      account.entries += 1;
    },
    requested(transfer: { transferId: string; amount: number } & AccountScope) {
      if (transfers.has(transfer.transferId)) return;
      const id = accountId(transfer);
      transfers.set(transfer.transferId, { account: id, amount: transfer.amount, ended: false });
      const account = figures(id);
      account.available -= transfer.amount;
      account.pending += transfer.amount;
      account.entries += 1;
    },
    settled(outcome: { transferId: string; status: 'COMPLETED' | 'FAILED' }) {
      const transfer = transfers.get(outcome.transferId);
      if (!transfer || transfer.ended) return;
      transfer.ended = true;
      const account = figures(transfer.account);
      account.pending -= transfer.amount;
      if (outcome.status === 'FAILED') {
        account.available += transfer.amount;
        account.entries += 1;
      }
    },
    accounts,
  };
}
