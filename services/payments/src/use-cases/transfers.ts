import { DuplicateKeyError, type Collection } from '@mmp/platform';
import {
  appError,
  type AppError,
  detectNetwork,
  newEvent,
  newPayoutId,
  newRefundId,
  normalizePhone,
  NETWORKS,
  payoutEvents,
  paymentEvents,
  phoneMatchesNetwork,
  refundEvents,
  routerQueries,
  transferEvents,
  type CreatePayoutBody,
  type CreateRefundBody,
  type Currency,
  type Network,
  type NormalizedPhone,
  type PaymentEventData,
  type PendingEvent,
  type TransferOutcomeData,
} from '@mmp/protocol';
import {
  entryKey,
  outcomeKey,
  payoutGate,
  refundGate,
  type Account,
  type AccountScope,
  type KeyedEntry,
  type LedgerEntry,
} from '../domain/ledger.js';
import { toSnapshot, type Payment } from '../domain/payment.js';
import type { TimelineEntry } from '../domain/timeline.js';
import {
  newTransferRecord,
  transferEventFields,
  transferFailureMessage,
  type Payout,
  type Refund,
} from '../domain/transfer.js';
import { findPaymentById, type Scope } from '../store/payments.js';
import {
  applyEntry,
  endTransferRecord,
  ensureAccount,
  type AccountChange,
  findPayout,
  findRefund,
  findTransferOfIdempotencyKey,
  insertPayout,
  insertRefund,
  undebitedPayouts,
  undebitedRefunds,
} from '../store/transfers.js';
import type { ClaimedKey } from '../store/idempotency.js';
import type { Deps } from '../deps.js';

const REFUNDABLE = ['COMPLETED', 'PARTIALLY_REFUNDED'];

const meta = (scope: Scope, at: string) => ({
  occurredAt: at,
  projectId: scope.projectId,
  livemode: scope.livemode,
});

/** The payer's number, read as Cameroonian when the payment was in XAF. */
const payerOf = (payment: Payment) =>
  normalizePhone(payment.payerPhone ?? '', payment.currency === 'XAF' ? 'CM' : undefined);

/** The country of a transfer's number; Cameroon when the number does not tell. */
const countryOf = (phone: NormalizedPhone | null) => phone?.country ?? 'CM';

/** The rail that collected a payment: where its refund goes first. */
function collectingRail(payment: Payment): string | null {
  for (const entry of [...payment.timeline].reverse()) {
    if (entry.routing?.railId) return entry.routing.railId;
  }
  return null;
}

/**
 * The rail gates, before any order (provider-router's `payouts.route`): a live key while no
 * live rail pays out (403), else no payout-capable rail for the channel (409).
 */
async function checkRailGates(
  deps: Deps,
  scope: Scope,
  channel: { network: Network; currency: Currency; country: string },
  requestId: string,
): Promise<void> {
  const route = await deps.bus.request(
    routerQueries.payoutRoute,
    { livemode: scope.livemode, ...channel },
    { requestId },
  );
  if (route.available) return;
  if (scope.livemode && !route.anyRailOfEnvironment) {
    throw appError('live_payouts_unavailable', 'No live rail executes payouts yet; use a test key.');
  }
  throw appError(
    'payout_rail_unavailable',
    `No active payout-capable rail serves ${channel.network} in ${channel.currency} for this environment.`,
  );
}

function refundGateError(
  reason: 'nothing_left' | 'above_remaining' | 'insufficient_balance',
  remaining: number,
) {
  if (reason === 'nothing_left') {
    return appError('invalid_state', 'This payment has been refunded in full (refunds in flight included).');
  }
  if (reason === 'above_remaining') {
    return appError('invalid_amount', `amount is above what remains to refund (${remaining}).`, [
      { field: 'amount', message: `must be at most ${remaining}` },
    ]);
  }
  return insufficientBalance();
}

const insufficientBalance = () =>
  appError('insufficient_available_balance', 'The available balance does not cover this amount.');

/**
 * Debits the account of `record` once (the gate checked on the account the debit applies
 * to), then marks the record debited. Throws the gate's error when the balance (or the
 * payment) no longer allows it, after removing the record: a refused transfer leaves
 * nothing behind.
 */
async function debitRecord(
  deps: Deps,
  record: Refund | Payout,
  entry: LedgerEntry,
  event: PendingEvent,
  paymentAmount: number | null,
  requestId: string,
): Promise<void> {
  const scope = { projectId: record.projectId, livemode: record.livemode, currency: record.currency };
  const amount = -entry.amount;
  const keyed = { ...entry, key: entryKey(entry.kind, entry.sourceId) };
  const collection = entry.kind === 'refund' ? deps.db.refunds : deps.db.payouts;
  const result = await applyEntry(
    deps,
    scope,
    keyed,
    (account): AccountChange<AppError> => {
      const refused = gateOf(account, record, paymentAmount, entry);
      if (refused) return { refused };
      const inc: Record<string, number> = { available: entry.amount, pending: amount };
      if (entry.paymentId && paymentAmount !== null) inc[`refunded.${entry.paymentId}`] = amount;
      return { inc };
    },
    [event],
    { requestId },
  );
  if (result.outcome === 'refused') {
    await collection.deleteMany({ _id: record._id, debited: false });
    throw result.refused;
  }
  await collection.updateMany({ _id: record._id }, { $set: { debited: true } });
}

function debitRefund(deps: Deps, refund: Refund, payment: Payment, requestId: string): Promise<void> {
  return debitRecord(
    deps,
    refund,
    refundEntry(refund),
    refundRequested(refund, payment),
    payment.amount,
    requestId,
  );
}

function debitPayout(deps: Deps, payout: Payout, requestId: string): Promise<void> {
  return debitRecord(deps, payout, payoutEntry(payout), payoutRequested(payout), null, requestId);
}

/**
 * What the first attempt with this Idempotency-Key left when it crashed: its record, debited
 * now if the crash came before the debit. Null when it left none, or this is no recovery.
 */
async function recoveredTransfer<T extends Refund | Payout>(
  collection: Collection<T>,
  idem: ClaimedKey,
  debit: (earlier: T) => Promise<void>,
): Promise<T | null> {
  if (!idem.recovering || !idem.idempotencyId) return null;
  const earlier = await findTransferOfIdempotencyKey(collection, idem.idempotencyId);
  if (!earlier) return null;
  if (!earlier.debited) await debit(earlier);
  return (await collection.findOne({ _id: earlier._id })) ?? earlier;
}

function gateOf(account: Account, record: Refund | Payout, paymentAmount: number | null, entry: LedgerEntry) {
  if (entry.kind === 'refund' && entry.paymentId && paymentAmount !== null) {
    const gate = refundGate(account, entry.paymentId, paymentAmount, record.amount);
    return gate.ok ? null : refundGateError(gate.reason, gate.remaining);
  }
  return payoutGate(account, record.amount) ? null : insufficientBalance();
}

function refundEntry(refund: Refund): LedgerEntry {
  return {
    kind: 'refund',
    sourceId: refund.id,
    paymentId: refund.paymentId,
    amount: -refund.amount,
    at: refund.createdAt,
  };
}

function payoutEntry(payout: Payout): LedgerEntry {
  return {
    kind: 'payout',
    sourceId: payout.id,
    paymentId: null,
    amount: -payout.amount,
    at: payout.createdAt,
  };
}

function refundRequested(refund: Refund, payment: Payment): PendingEvent {
  const phone = payerOf(payment);
  return newEvent(
    transferEvents.requested,
    {
      transferId: refund.id,
      kind: 'refund',
      projectId: refund.projectId,
      livemode: refund.livemode,
      amount: refund.amount,
      currency: refund.currency,
      network: payment.paymentMethod as Network,
      country: countryOf(phone),
      phone: phone?.e164 ?? payment.payerPhone ?? '',
      preferredRailId: collectingRail(payment),
    },
    meta(refund, refund.createdAt),
  );
}

function payoutRequested(payout: Payout): PendingEvent {
  return newEvent(
    transferEvents.requested,
    {
      transferId: payout.id,
      kind: 'payout',
      projectId: payout.projectId,
      livemode: payout.livemode,
      amount: payout.amount,
      currency: payout.currency,
      network: payout.network,
      country: countryOf(normalizePhone(payout.recipientPhone)),
      phone: payout.recipientPhone,
      preferredRailId: null,
    },
    meta(payout, payout.createdAt),
  );
}

/**
 * A refund of a COMPLETED or PARTIALLY_REFUNDED payment to its payer. The gates come first
 * (rails, then what remains of the payment and the balance), then the record, then the debit
 * with its `transfer.requested` event in one compare-and-set.
 */
export async function requestRefund(
  deps: Deps,
  scope: Scope,
  payment: Payment,
  body: CreateRefundBody,
  idem: ClaimedKey,
  requestId: string,
): Promise<Refund> {
  const recovered = await recoveredTransfer(deps.db.refunds, idem, (earlier) =>
    debitRefund(deps, earlier, payment, requestId),
  );
  if (recovered) return recovered;
  if (!REFUNDABLE.includes(payment.status)) {
    throw appError(
      'invalid_state',
      `Only COMPLETED or PARTIALLY_REFUNDED payments can be refunded (this one is ${payment.status}).`,
    );
  }
  const network = payment.paymentMethod as Network;
  if (!(NETWORKS as readonly string[]).includes(network) || !payment.payerPhone) {
    throw appError('invalid_state', 'This payment has no payer number to refund to.');
  }
  const channel = { network, currency: payment.currency, country: countryOf(payerOf(payment)) };
  await checkRailGates(deps, scope, channel, requestId);
  const at = deps.now().toISOString();
  const account = await creditedAccount(deps, payment, at, requestId);
  const gate = refundGate(account, payment.id, payment.amount, body.amount);
  if (!gate.ok) throw refundGateError(gate.reason, gate.remaining);
  const refund: Refund = {
    ...newTransferRecord(
      newRefundId(),
      scope,
      { amount: gate.amount, currency: payment.currency },
      idem.idempotencyId,
      at,
    ),
    paymentId: payment.id,
    paymentToken: payment.token,
    reason: body.reason ?? null,
  };
  await insertRefund(deps.db, refund);
  await debitRefund(deps, refund, payment, requestId);
  return { ...refund, debited: true };
}

function referenceKey(scope: Scope, reference: string): string {
  return `${scope.projectId}:${scope.livemode ? 'live' : 'test'}:${reference}`;
}

/** A payout from the available balance to a phone number, under the same gates as a refund. */
export async function requestPayout(
  deps: Deps,
  scope: Scope,
  body: CreatePayoutBody,
  idem: ClaimedKey,
  requestId: string,
): Promise<Payout> {
  const recovered = await recoveredTransfer(deps.db.payouts, idem, (earlier) =>
    debitPayout(deps, earlier, requestId),
  );
  if (recovered) return recovered;
  const phone = body.recipient.phone;
  const network = body.network ?? detectNetwork(phone);
  if (!network || !phoneMatchesNetwork(phone, network)) {
    throw appError('invalid_phone', 'The recipient number does not belong to a supported network.', [
      {
        field: network ? 'recipient.phone' : 'network',
        message: network ? `is not a ${network} number` : 'give the network of this number',
      },
    ]);
  }
  const channel = { network, currency: body.currency, country: countryOf(normalizePhone(phone)) };
  await checkRailGates(deps, scope, channel, requestId);
  const at = deps.now().toISOString();
  const account = await ensureAccount(deps.db, { ...scope, currency: body.currency }, at);
  if (!payoutGate(account, body.amount)) throw insufficientBalance();
  const payout: Payout = {
    ...newTransferRecord(newPayoutId(), scope, body, idem.idempotencyId, at),
    recipientPhone: phone,
    network,
    reference: body.reference,
    referenceKey: referenceKey(scope, body.reference),
    description: body.description ?? null,
    metadata: body.metadata ?? {},
  };
  try {
    await insertPayout(deps.db, payout);
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    throw appError('duplicate_transaction', 'A payout with this reference exists.', [
      { field: 'reference', message: 'is used by another payout of this project and environment' },
    ]);
  }
  await debitPayout(deps, payout, requestId);
  return { ...payout, debited: true };
}

/** A completed payment enters its account once, whoever redelivers its event. */
export async function creditCompletedPayment(
  deps: Deps,
  data: PaymentEventData,
  requestId?: string,
): Promise<void> {
  const { payment } = data;
  const scope = { projectId: payment.projectId, livemode: payment.livemode, currency: payment.currency };
  const at = payment.completedAt ?? deps.now().toISOString();
  const entry: LedgerEntry = {
    kind: 'payment',
    sourceId: payment.id,
    paymentId: payment.id,
    amount: payment.amount,
    at,
  };
  await applyEntry(
    deps,
    scope,
    { ...entry, key: entryKey('payment', payment.id) },
    () => ({ inc: { available: payment.amount } }),
    [],
    { requestId },
  );
}

/**
 * The account of a payment about to be refunded, with the payment credited: a refund asked
 * the moment the payment completed must not wait for (or be refused before) the ledger's
 * consumer of `payment.completed`; the credit is entered once whoever comes first.
 */
async function creditedAccount(
  deps: Deps,
  payment: Payment,
  at: string,
  requestId: string,
): Promise<Account> {
  const scope = { projectId: payment.projectId, livemode: payment.livemode, currency: payment.currency };
  await creditCompletedPayment(deps, { payment: toSnapshot(payment) }, requestId);
  return ensureAccount(deps.db, scope, at);
}

function refundEventData(refund: Refund, payment: Payment) {
  return {
    payment: toSnapshot(payment),
    refund: {
      ...transferEventFields(refund),
      paymentId: refund.paymentId,
      paymentToken: refund.paymentToken,
      customerId: payment.customerId,
      reason: refund.reason,
    },
  };
}

function payoutEventData(payout: Payout) {
  return {
    payout: {
      ...transferEventFields(payout),
      reference: payout.reference,
      recipientPhone: payout.recipientPhone,
      network: payout.network,
      description: payout.description,
      metadata: payout.metadata,
    },
  };
}

/**
 * A transfer's outcome from provider-router. Each step is guarded and done once, so a
 * redelivered outcome (after a crash between steps) finishes what is left: the account,
 * the record, then for a completed refund its payment (PARTIALLY_REFUNDED or REFUNDED).
 */
export async function applyTransferOutcome(
  deps: Deps,
  data: TransferOutcomeData,
  requestId?: string,
): Promise<void> {
  const at = deps.now().toISOString();
  const failureCode = data.status === 'FAILED' ? (data.failureCode ?? 'provider_declined') : null;
  const ended = {
    status: data.status,
    failureCode,
    failureMessage: failureCode ? transferFailureMessage(failureCode) : null,
    completedAt: data.status === 'COMPLETED' ? data.settledAt : null,
    updatedAt: at,
  };
  if (data.kind === 'payout') {
    const payout = await findPayout(deps.db, data.transferId);
    if (!payout) {
      deps.log.warn({ transferId: data.transferId }, 'transfer outcome for an unknown payout');
      return;
    }
    const next: Payout = { ...payout, ...ended };
    const contract = data.status === 'COMPLETED' ? payoutEvents.completed : payoutEvents.failed;
    const event = newEvent(contract, payoutEventData(next), meta(payout, at));
    await settleDebit(
      deps,
      payout,
      payoutEntry(payout),
      data.status,
      at,
      payout.status === 'PENDING' ? [event] : [],
      requestId,
    );
    await endTransferRecord<Payout>(deps.db.payouts, payout.id, ended);
    return;
  }
  const refund = await findRefund(deps.db, data.transferId);
  if (!refund) {
    deps.log.warn({ transferId: data.transferId }, 'transfer outcome for an unknown refund');
    return;
  }
  const payment = await findPaymentById(deps.db, refund.paymentId);
  if (!payment) return;
  const next: Refund = { ...refund, ...ended };
  const scope = { projectId: refund.projectId, livemode: refund.livemode, currency: refund.currency };
  const failed =
    data.status === 'FAILED'
      ? [newEvent(refundEvents.failed, refundEventData(next, payment), meta(refund, at))]
      : [];
  await settleDebit(
    deps,
    scope,
    refundEntry(refund),
    data.status,
    at,
    refund.status === 'PENDING' ? failed : [],
    requestId,
  );
  await endTransferRecord<Refund>(deps.db.refunds, refund.id, ended);
  if (data.status === 'COMPLETED') await applyRefundToPayment(deps, next, requestId);
}

/**
 * Ends an in-flight debit once, whatever outcome comes first: COMPLETED leaves the money out;
 * FAILED gives it back with a reversal (and, for a refund, to what its payment may still
 * refund). Entries are facts that never change: where a debit stands is whether its
 * outcome entry exists, and which kind it is.
 */
async function settleDebit(
  deps: Deps,
  scope: AccountScope,
  debit: LedgerEntry,
  state: 'COMPLETED' | 'FAILED',
  at: string,
  events: PendingEvent[],
  requestId?: string,
): Promise<void> {
  const amount = -debit.amount;
  const debitKey = entryKey(debit.kind, debit.sourceId);
  const failed = state === 'FAILED';
  const outcome: KeyedEntry = {
    kind: failed ? 'reversal' : 'completion',
    sourceId: debit.sourceId,
    paymentId: debit.paymentId,
    amount: failed ? amount : 0,
    at,
    key: outcomeKey(debit.sourceId),
  };
  await applyEntry(
    deps,
    scope,
    outcome,
    () => {
      const inc: Record<string, number> = { pending: -amount };
      if (failed) inc.available = amount;
      if (failed && debit.paymentId) inc[`refunded.${debit.paymentId}`] = -amount;
      return { inc };
    },
    events,
    { requestId, after: debitKey },
  );
}

/** The payment of a completed refund: refundedAmount grows, the status follows; once per refund. */
async function applyRefundToPayment(deps: Deps, refund: Refund, requestId?: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const payment = await findPaymentById(deps.db, refund.paymentId);
    if (!payment || payment.appliedSettlements.includes(refund.id)) return;
    const at = deps.now().toISOString();
    const refundedAmount = (payment.refundedAmount ?? 0) + refund.amount;
    const status = refundedAmount >= payment.amount ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    const next: Payment = { ...payment, refundedAmount, status, updatedAt: at };
    const moved = newEvent(
      status === 'REFUNDED' ? paymentEvents.refunded : paymentEvents.partiallyRefunded,
      { payment: toSnapshot(next) },
      meta(payment, at),
    );
    const completed = newEvent(refundEvents.completed, refundEventData(refund, next), meta(payment, at));
    const entry: TimelineEntry = {
      id: moved.id,
      type: moved.type,
      status,
      at,
      detail: { refundId: refund.id },
    };
    const written = await deps.outbox.update(
      deps.db.payments,
      { _id: payment._id, version: payment.version },
      {
        $set: {
          refundedAmount,
          status,
          updatedAt: at,
          appliedSettlements: [...payment.appliedSettlements, refund.id],
        },
        $push: { timeline: { $each: [entry] } },
        $inc: { version: 1 },
      },
      [moved, completed],
      requestId,
    );
    if (written) return;
  }
  throw new Error(`payment ${refund.paymentId} kept changing while its refund ${refund.id} was applied`);
}

/**
 * Records a crash left between their insert and their debit: debited now (at most once,
 * the entry guards it) or, when the balance no longer allows it, removed as refused.
 */
export async function finishUndebited(deps: Deps, staleMs: number, requestId?: string): Promise<number> {
  const before = new Date(deps.now().getTime() - staleMs).toISOString();
  let finished = 0;
  for (const refund of await undebitedRefunds(deps.db, before)) {
    const payment = await findPaymentById(deps.db, refund.paymentId);
    if (!payment) continue;
    await debitRefund(deps, refund, payment, requestId ?? 'sweep').catch((error: unknown) =>
      deps.log.warn({ refundId: refund.id, error }, 'undebited refund refused'),
    );
    finished += 1;
  }
  for (const payout of await undebitedPayouts(deps.db, before)) {
    await debitPayout(deps, payout, requestId ?? 'sweep').catch((error: unknown) =>
      deps.log.warn({ payoutId: payout.id, error }, 'undebited payout refused'),
    );
    finished += 1;
  }
  return finished;
}
