import type { Currency, Network, Payout as PayoutView, Refund as RefundView } from '@mmp/protocol';
import type { TransferState } from './ledger.js';

/** What refunds and payouts share as stored. */
type TransferRecord = {
  _id: string;
  id: string;
  projectId: string;
  livemode: boolean;
  amount: number;
  currency: Currency;
  status: TransferState;
  /** False between the record's insert and its debit: a crash there is finished by the sweep. */
  debited: boolean;
  failureCode: string | null;
  failureMessage: string | null;
  /** The Idempotency-Key record that asked for it, to recover after a crash. */
  idempotencyId: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
};

export type Refund = TransferRecord & {
  paymentId: string;
  paymentToken: string;
  reason: string | null;
};

export type Payout = TransferRecord & {
  recipientPhone: string;
  network: Network;
  reference: string;
  /** `<projectId>:<live|test>:<reference>`: unique. */
  referenceKey: string;
  description: string | null;
  metadata: Record<string, unknown>;
};

/** A refund's or payout's shared fields as it is recorded: PENDING, and not debited yet. */
export function newTransferRecord(
  id: string,
  scope: { projectId: string; livemode: boolean },
  money: { amount: number; currency: Currency },
  idempotencyId: string | null,
  at: string,
): TransferRecord {
  return {
    _id: id,
    id,
    projectId: scope.projectId,
    livemode: scope.livemode,
    amount: money.amount,
    currency: money.currency,
    status: 'PENDING',
    debited: false,
    failureCode: null,
    failureMessage: null,
    idempotencyId,
    createdAt: at,
    updatedAt: at,
    completedAt: null,
  };
}

/** The shared fields a refund's or payout's events carry (bookkeeping fields stay inside). */
export function transferEventFields(record: TransferRecord) {
  return {
    id: record.id,
    projectId: record.projectId,
    livemode: record.livemode,
    amount: record.amount,
    currency: record.currency,
    status: record.status,
    failureCode: record.failureCode,
    failureMessage: record.failureMessage,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    completedAt: record.completedAt,
  };
}

/** The sentence a merchant's support staff read beside a transfer's failure code. */
export function transferFailureMessage(code: string): string {
  switch (code) {
    case 'account_inactive':
      return "The recipient's wallet is inactive.";
    case 'provider_unavailable':
      return 'No payout-capable rail could take the order.';
    case 'provider_timeout':
      return 'The provider did not confirm the transfer in time.';
    default:
      return `The provider declined the transfer (${code}).`;
  }
}

export function toRefundView(refund: Refund): RefundView {
  return {
    id: refund.id,
    object: 'refund',
    paymentToken: refund.paymentToken,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status,
    reason: refund.reason,
    livemode: refund.livemode,
    failureCode: refund.failureCode,
    failureMessage: refund.failureMessage,
    createdAt: refund.createdAt,
    updatedAt: refund.updatedAt,
    completedAt: refund.completedAt,
  };
}

export function toPayoutView(payout: Payout): PayoutView {
  return {
    id: payout.id,
    object: 'payout',
    projectId: payout.projectId,
    amount: payout.amount,
    currency: payout.currency,
    status: payout.status,
    recipient: { phone: payout.recipientPhone },
    network: payout.network,
    reference: payout.reference,
    description: payout.description,
    metadata: payout.metadata,
    livemode: payout.livemode,
    failureCode: payout.failureCode,
    failureMessage: payout.failureMessage,
    createdAt: payout.createdAt,
    updatedAt: payout.updatedAt,
    completedAt: payout.completedAt,
  };
}
