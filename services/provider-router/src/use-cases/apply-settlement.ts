import { randomBytes } from 'node:crypto';
import { DuplicateKeyError } from '@mmp/platform';
import { appError, isHexSha256, verifyHexHmac, type SettlementReceipt } from '@mmp/protocol';
import type { Order } from '../domain/order.js';
import { paymentEventsOf, settlementReceivedEvent, transferSettledEvents } from '../domain/order-events.js';
import { newSettlementId } from '../domain/provider.js';
import type { Settlement } from '../domain/reconciliation.js';
import {
  isFinal,
  mismatchFields,
  parseJsonBody,
  parseSettlement,
  settledAtFields,
} from '../domain/settlement.js';
import { findOrderToSettle } from '../store/orders.js';
import {
  findOutcomeOf,
  countDuplicate,
  findSettlementByKey,
  insertMismatch,
  insertSettlement,
} from '../store/settlements.js';
import { isoNow, type RouterDeps } from './deps.js';
import { signingProvider } from './providers.js';

export type SignedSettlement = { providerId: string; rawBody: string; signature: string };

/**
 * A missing or misshapen signature is said so, which helps a provider's engineer and gives
 * nothing away: it is judged before the provider is looked up, so the answer is the same
 * for any provider. A well-formed one that does not match reads the same for a wrong
 * secret and an unknown provider (`signatureMismatch`).
 */
function misshapenSignature(signature: string) {
  if (signature === '') {
    return appError(
      'signature_invalid',
      'The x-service-signature header is missing: send the hex HMAC-SHA256 of the exact body, keyed with your ssec_ signing secret.',
    );
  }
  if (!isHexSha256(signature)) {
    return appError(
      'signature_invalid',
      'The x-service-signature header is not 64 hex digits: a settlement is signed with the bare hex HMAC-SHA256 of the exact body, without t=…,v1=… parts.',
    );
  }
  return undefined;
}

function signatureMismatch() {
  return appError('signature_invalid', 'The x-service-signature header does not match the body.');
}

function duplicate() {
  return appError('duplicate_event', 'This idempotency_key was already received; the event is ignored.');
}

/** 409 for a key this provider sent before, counted on the settlement it first made. */
async function refuseDuplicate(deps: RouterDeps, providerId: string, idempotencyKey: string) {
  const seen = await findSettlementByKey(deps.db, providerId, idempotencyKey);
  if (!seen) return;
  await countDuplicate(deps.db, seen._id);
  throw duplicate();
}

/**
 * What the order's first final settlement announces: settlement.received for a payment,
 * transfer.settled for a refund or payout (any final status but COMPLETED fails it).
 */
function outcomeEvents(settlement: Settlement, order: Order) {
  const completed = settlement.status === 'COMPLETED';
  return [
    ...paymentEventsOf(order, [settlementReceivedEvent(settlement, order, settlement.receivedAt)]),
    ...transferSettledEvents(
      order,
      {
        status: completed ? 'COMPLETED' : 'FAILED',
        failureCode: completed ? null : (settlement.failureCode ?? 'provider_declined'),
        railId: order.railId,
      },
      settlement.receivedAt,
    ),
  ];
}

/**
 * Stores a settlement. A final settlement of an order claims `outcomeOf` (a unique index)
 * and carries settlement.received in the same write; when the claim is taken, whatever its
 * key, it is read and this one is kept as a second outcome for reconciliation, never
 * applied. Two racing settlements of one order end the same way: one claim wins. The claim
 * is tried before any read because almost every final settlement is its order's first.
 */
async function store(deps: RouterDeps, settlement: Settlement, order: Order | null, requestId?: string) {
  const decides = order !== null && isFinal(settlement.status);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const applied = decides && attempt > 0 ? await findOutcomeOf(deps.db, order._id) : null;
    const record: Settlement = !decides
      ? settlement
      : applied
        ? {
            ...settlement,
            secondOutcome: { appliedSettlementId: applied._id, appliedStatus: applied.status },
          }
        : { ...settlement, outcomeOf: order._id };
    const events = decides && !applied ? outcomeEvents(settlement, order) : [];
    try {
      await insertSettlement(deps.outbox, deps.db, record, events, requestId);
      if (applied)
        deps.log.warn(
          { orderKey: order?._id, settlementId: record._id, appliedSettlementId: applied._id },
          'second outcome for a decided order; kept for reconciliation, not applied',
        );
      return;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      await refuseDuplicate(deps, settlement.providerId, settlement.idempotencyKey);
      // Another settlement decided the order: read it and keep this one as second.
    }
  }
  throw new Error(`settlement ${settlement.idempotencyKey} could not be stored`);
}

/**
 * A provider's SettlementEvent, checked in the documented order: signature over the exact
 * raw body (403, before parsing; an unknown provider looks the same), JSON (422 naming
 * `body`), schema or mapping then schema (422 listing every field), duplicate key (409),
 * then against the order: amount and currency (422, the refusal kept for reconciliation)
 * and `settled_at` (422: not before the order, not in the future, within the clock skew).
 * Then stored with its raw body and, when it decides the order, announced.
 */
export async function applySettlement(
  deps: RouterDeps,
  signed: SignedSettlement,
  requestId?: string,
): Promise<SettlementReceipt> {
  const { providerId, rawBody } = signed;
  const misshapen = misshapenSignature(signed.signature.trim());
  if (misshapen) throw misshapen;
  const signing = providerId ? await signingProvider(deps, providerId) : null;
  // An unknown provider costs the same HMAC as a known one: the answer reveals nothing.
  const secret = signing?.signingSecret ?? randomBytes(32).toString('hex');
  if (!verifyHexHmac(secret, rawBody, signed.signature) || !signing) throw signatureMismatch();
  const { provider } = signing;
  const { event, format, failureCode } = parseSettlement(parseJsonBody(rawBody), provider.mapping);
  const order = await findOrderToSettle(deps.db, providerId, {
    idempotencyKey: event.idempotency_key,
    transactionRef: event.transaction_ref,
  });
  const now = isoNow(deps);
  const mismatched = order ? mismatchFields(event, order) : [];
  const fields = [
    ...mismatched,
    ...settledAtFields(event.settled_at, {
      orderCreatedAt: order?.createdAt ?? null,
      nowMs: deps.now(),
      skewMs: deps.config.settlementSkewMs,
    }),
  ];
  // A duplicate is 409 before any refusal of its fields; one that passes them finds its
  // key taken when it is stored (the unique index), which spares every settlement a read.
  if (fields.length > 0) await refuseDuplicate(deps, providerId, event.idempotency_key);
  if (order && mismatched.length > 0) {
    await insertMismatch(deps.db, {
      _id: newSettlementId(),
      providerId,
      idempotencyKey: event.idempotency_key,
      orderKey: order._id,
      paymentId: order.paymentId,
      livemode: order.livemode,
      fields,
      rawBody,
      receivedAt: now,
    });
  }
  if (fields.length > 0)
    throw appError('validation_error', `Invalid fields: ${fields.map((f) => f.field).join(', ')}.`, fields);
  const settlement: Settlement = {
    _id: newSettlementId(),
    providerId,
    idempotencyKey: event.idempotency_key,
    transactionRef: event.transaction_ref,
    status: event.status,
    amount: event.amount,
    currency: event.currency,
    network: event.network,
    settledAt: event.settled_at,
    format,
    failureCode,
    rawBody,
    orderKey: order?._id ?? null,
    paymentId: order?.paymentId ?? null,
    livemode: order?.livemode ?? null,
    afterExpiry: order !== null && event.status === 'COMPLETED' && now > order.expiresAt,
    receivedAt: now,
  };
  await store(deps, settlement, order, requestId);
  return {
    received: true,
    settlementId: settlement._id,
    matched: order !== null,
    orderKey: settlement.orderKey,
    status: event.status,
  };
}
