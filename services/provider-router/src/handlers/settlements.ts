import { randomBytes } from 'node:crypto';
import { appError, newEventId, verifyHexHmac, type SettlementEvent } from '@mmp/protocol';
import { DuplicateKeyError, type Operation, type PendingEvent } from '@mmp/platform';
import { newSettlementId } from '../domain/provider.js';
import { isFinal, mismatchFields, parseJsonBody, parseSettlement } from '../domain/settlement.js';
import type { Order } from '../domain/order.js';
import type { Settlement } from '../domain/reconciliation.js';
import { isoNow, type RouterDeps } from './deps.js';

const SIGNATURE_HEADER = 'x-service-signature';

function signatureInvalid() {
  return appError('signature_invalid', 'The x-service-signature header does not match the body.');
}

/** The order a settlement is about: by its key, else by our transaction_ref; only orders handed to this provider. */
async function correlate(
  deps: RouterDeps,
  providerId: string,
  event: SettlementEvent,
): Promise<Order | null> {
  const order =
    (await deps.db.orders.findOne({ _id: event.idempotency_key })) ??
    (await deps.db.orders.findOne({ transactionRef: event.transaction_ref }));
  return order && order.providerIds.includes(providerId) ? order : null;
}

function duplicate() {
  return appError('duplicate_event', 'This idempotency_key was already received; the event is ignored.');
}

function receivedEvent(settlement: Settlement, order: Order, now: string): PendingEvent {
  return {
    id: newEventId(),
    type: 'settlement.received',
    occurredAt: now,
    projectId: order.projectId,
    livemode: order.livemode,
    data: {
      settlementId: settlement._id,
      paymentId: order.paymentId,
      orderKey: order._id,
      providerId: settlement.providerId,
      status: settlement.status,
      amount: order.amount,
      currency: order.currency,
      network: settlement.network,
      settledAt: settlement.settledAt,
      failureCode: settlement.failureCode,
    },
  };
}

/**
 * POST /v1/provider/webhooks/{providerId}, checks in the documented order: signature over
 * the exact raw body (403, before parsing; an unknown provider looks the same), JSON (422
 * naming `body`), schema or mapping then schema (422 listing every field), duplicate key
 * (409), amount and currency against the order (422), correlation; then store with the
 * raw body and emit.
 */
export function settlementOperations(deps: RouterDeps): Record<string, Operation> {
  const { db } = deps;
  return {
    'settlements.ingest': async (request, { requestId }) => {
      const providerId = request.params.providerId ?? '';
      const rawBody = request.rawBody ?? '';
      const signature = request.headers[SIGNATURE_HEADER] ?? '';
      const provider = providerId ? await db.providers.findOne({ _id: providerId }) : null;
      // An unknown provider costs the same HMAC as a known one: the answer reveals nothing.
      const secret = provider ? deps.box.open(provider.sealedSigningSecret) : randomBytes(32).toString('hex');
      if (!verifyHexHmac(secret, rawBody, signature) || !provider) throw signatureInvalid();
      const { event, format, failureCode } = parseSettlement(parseJsonBody(rawBody), provider.mapping);
      if (await db.settlements.findOne({ providerId, idempotencyKey: event.idempotency_key }))
        throw duplicate();
      const order = await correlate(deps, providerId, event);
      const now = isoNow(deps);
      if (order) {
        const fields = mismatchFields(event, order);
        if (fields.length > 0) {
          await db.mismatches.insertOne({
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
          throw appError(
            'validation_error',
            `Invalid fields: ${fields.map((f) => f.field).join(', ')}.`,
            fields,
          );
        }
      }
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
      const events = order && isFinal(event.status) ? [receivedEvent(settlement, order, now)] : [];
      try {
        await deps.outbox.insert(db.settlements, settlement, events, requestId);
      } catch (error) {
        if (error instanceof DuplicateKeyError) throw duplicate();
        throw error;
      }
      return {
        status: 200,
        body: {
          received: true,
          settlementId: settlement._id,
          matched: order !== null,
          orderKey: settlement.orderKey,
          status: event.status,
        },
      };
    },
  };
}
