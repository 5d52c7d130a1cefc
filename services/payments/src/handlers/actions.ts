import { z } from 'zod';
import type { Operation } from '@mmp/platform';
import {
  Network,
  SettlementReceivedData,
  appError,
  isAppError,
  networksFor,
  normalizePhone,
  parseOrThrow,
  phoneMatchesNetwork,
  type ServiceReply,
  requireActor,
} from '@mmp/protocol';
import { OPEN_STATUSES, onMerchantCancel, onPayerCancel } from '../domain/lifecycle.js';
import { toFullPayment, toSnapshot, type Payment } from '../domain/payment.js';
import type { TimelineEntry } from '../domain/timeline.js';
import { findPaymentById, findPaymentByToken } from '../store/payments.js';
import { idempotencyKeyOf, type Deps } from './deps.js';
import { applyExecutionOutcome, applySettlement, type ExecutionOutcomeType } from './lifecycle-consumer.js';
import { expirePayment } from './expiry.js';
import { merchantPayment, paymentNotFound } from './read.js';
import { paymentEvent, transition } from './transition.js';

const InitiatePaymentBody = z.object({
  token: z.string().min(1),
  paymentMethod: Network,
  phone: z.string().min(1).max(32),
});

const CancelForSessionBody = z.object({
  token: z.string().min(1),
  checkoutSessionId: z.string().min(1).optional(),
});

/**
 * What verify reads of provider-router's `orders.status` answer: the order's state, and the
 * latest settlement (checked against its own schema where it is applied).
 */
const OrderStatusReply = z.object({
  order: z
    .object({
      orderKey: z.string(),
      /** ROUTED, ACCEPTED or FAILED; a state added later is read as "nothing to apply". */
      status: z.string(),
      railId: z.string().nullable(),
      failureCode: z.string().nullable().default(null),
      decisions: z.array(z.object({ reason: z.string() })).default([]),
    })
    .nullable(),
  settlement: z.unknown(),
});
type OrderStatusReply = z.infer<typeof OrderStatusReply>;

/** The order states that are a verdict, and the event provider-router announces it with. */
const EXECUTION_OUTCOMES: Partial<Record<string, ExecutionOutcomeType>> = {
  ACCEPTED: 'execution.accepted',
  FAILED: 'execution.failed',
};

/**
 * Applies what provider-router knows through the same compare-and-set paths as its events:
 * the order's verdict first (a rail accepted it, or none could), then the settlement, so
 * the timeline reads as if the events had arrived.
 */
async function applyOrderStatus(deps: Deps, paymentId: string, reply: OrderStatusReply, requestId: string) {
  const { order } = reply;
  const verdict = order && EXECUTION_OUTCOMES[order.status];
  if (order && verdict) {
    await applyExecutionOutcome(
      deps,
      verdict,
      {
        paymentId,
        orderKey: order.orderKey,
        railId: order.railId,
        code: verdict === 'execution.failed' ? order.failureCode : null,
        reason: order.decisions.at(-1)?.reason ?? null,
      },
      requestId,
    );
  }
  const settlement = SettlementReceivedData.safeParse(reply.settlement);
  if (settlement.success) await applySettlement(deps, settlement.data, requestId);
}

/** Why a payment cannot be initiated, in the order a payer would want to hear it. */
async function refuseUnlessInitiable(deps: Deps, payment: Payment, requestId: string): Promise<void> {
  if (payment.status === 'CANCELLED') throw appError('payment_cancelled', 'This payment was cancelled.');
  if (payment.status === 'EXPIRED') throw appError('payment_expired', 'This payment has expired.');
  if (OPEN_STATUSES.includes(payment.status) && new Date(payment.expiresAt) <= deps.now()) {
    await expirePayment(deps, payment, requestId);
    throw appError('payment_expired', 'This payment has expired.');
  }
  if (payment.status !== 'PENDING' || payment.initiatedAt) {
    throw appError(
      'invalid_state',
      `This payment is already ${payment.initiatedAt && payment.status === 'PENDING' ? 'being executed' : payment.status}; it cannot be initiated again.`,
    );
  }
}

function checkPhone(phone: string, network: Network, currency: string) {
  const normalized = normalizePhone(phone, currency === 'XAF' ? 'CM' : undefined);
  if (!normalized)
    throw appError(
      'invalid_phone',
      'The phone number is not valid; use the international format, e.g. +237690000001.',
    );
  if (!phoneMatchesNetwork(normalized.e164, network)) {
    throw appError('invalid_phone', `The phone number ${normalized.e164} does not belong to ${network}.`);
  }
  if (!networksFor(normalized.country, currency).includes(network)) {
    throw appError(
      'invalid_phone',
      `${network} payments in ${currency} are not available for numbers of ${normalized.country}.`,
    );
  }
  return normalized;
}

function cancelledByMerchant(payment: Payment): boolean {
  return (
    payment.status === 'CANCELLED' &&
    payment.timeline.some((entry) => entry.type === 'payment.cancelled' && entry.detail?.by === 'merchant')
  );
}

export function actionOperations(deps: Deps): Record<string, Operation> {
  return {
    async initiate(request, { actor, requestId }) {
      requireActor(actor, ['service']);
      const body = parseOrThrow(InitiatePaymentBody, request.body ?? {});
      const payment = await findPaymentByToken(deps.db, body.token);
      if (!payment) throw paymentNotFound();
      await refuseUnlessInitiable(deps, payment, requestId);
      const phone = checkPhone(body.phone, body.paymentMethod, payment.currency);
      const at = deps.now().toISOString();
      const next: Payment = {
        ...payment,
        payerPhone: phone.e164,
        paymentMethod: body.paymentMethod,
        initiatedAt: at,
        updatedAt: at,
      };
      const execution = { network: body.paymentMethod, phone: phone.e164, country: phone.country };
      const event = paymentEvent('payment.initiated', next, at, { execution });
      const entry: TimelineEntry = { id: event.id, type: event.type, status: 'PENDING', at };
      // Guarded on "PENDING and never initiated": two concurrent pays make one order.
      const updated = await deps.outbox.update(
        deps.db.payments,
        { _id: payment._id, status: 'PENDING', initiatedAt: null, version: payment.version },
        {
          $set: { payerPhone: phone.e164, paymentMethod: body.paymentMethod, initiatedAt: at, updatedAt: at },
          $push: { timeline: { $each: [entry] } },
          $inc: { version: 1 },
        },
        [event],
        requestId,
      );
      if (!updated) {
        const current = await findPaymentById(deps.db, payment.id);
        if (current) await refuseUnlessInitiable(deps, current, requestId);
        throw appError(
          'invalid_state',
          'This payment changed while it was being initiated; it cannot be initiated again.',
        );
      }
      return { status: 200, body: { payment: toSnapshot(updated) } };
    },

    async cancel(request, { actor, requestId }) {
      const merchant = requireActor(actor, ['merchant']);
      const scope = { projectId: merchant.projectId, livemode: merchant.livemode };
      const token = request.params.token;
      const key = idempotencyKeyOf(request.headers);
      return deps.idempotency.run(
        { operation: 'cancel', ...scope },
        key,
        { token, body: request.body ?? null },
        async (_id, recovering) => {
          const payment = await merchantPayment(deps, token, scope);
          // The holder of this key crashed after cancelling but before answering: answer now.
          if (recovering && cancelledByMerchant(payment))
            return { status: 200, body: toFullPayment(payment) };
          const result = await transition(
            deps,
            payment.id,
            (current) => ({
              // Once the payer initiated, an order may be executing: only the settlement decides.
              decision: current.initiatedAt
                ? { kind: 'none', reason: 'the payer already initiated this payment' }
                : onMerchantCancel(current.status),
              set: { failureCode: 'payment_cancelled', failureReason: 'Cancelled by the merchant.' },
              detail: { by: 'merchant' },
            }),
            requestId,
          );
          if (result.outcome === 'missing') throw paymentNotFound();
          if (result.outcome === 'unchanged') {
            throw appError(
              'invalid_state',
              `Only PENDING payments not yet initiated can be cancelled; this one cannot (${result.reason}).`,
            );
          }
          return { status: 200, body: toFullPayment(result.payment) } satisfies ServiceReply;
        },
      );
    },

    /** The payer cancelled the hosted checkout session of this payment. */
    async 'cancel-for-session'(request, { actor, requestId }) {
      requireActor(actor, ['service']);
      const body = parseOrThrow(CancelForSessionBody, request.body ?? {});
      const payment = await findPaymentByToken(deps.db, body.token);
      if (!payment || (body.checkoutSessionId && payment.checkoutSessionId !== body.checkoutSessionId))
        throw paymentNotFound();
      const result = await transition(
        deps,
        payment.id,
        (current) => ({
          decision: onPayerCancel(current.status),
          set: { failureCode: 'payment_cancelled', failureReason: 'Cancelled by the payer.' },
        }),
        requestId,
      );
      if (result.outcome === 'missing') throw paymentNotFound();
      if (result.outcome === 'unchanged')
        throw appError('invalid_state', `This payment cannot be cancelled (${result.reason}).`);
      return { status: 200, body: toSnapshot(result.payment) };
    },

    async verify(request, { actor, requestId, log }) {
      const merchant = requireActor(actor, ['merchant']);
      const payment = await merchantPayment(deps, request.params.token, merchant);
      try {
        const status = await deps.services.command<unknown>(
          'provider-router',
          'orders.status',
          { paymentId: payment.id },
          { requestId },
        );
        const reply = OrderStatusReply.safeParse(status);
        if (reply.success) await applyOrderStatus(deps, payment.id, reply.data, requestId);
        else log.warn({ paymentId: payment.id }, 'unreadable orders.status answer; answering stored state');
      } catch (error) {
        // Verify answers with what we know: the stored state stays true until a settlement says otherwise.
        if (!isAppError(error)) throw error;
        log.warn(
          { code: error.code, paymentId: payment.id },
          'provider-router unavailable during verify; answering stored state',
        );
      }
      const current = (await findPaymentById(deps.db, payment.id)) ?? payment;
      if (OPEN_STATUSES.includes(current.status) && new Date(current.expiresAt) <= deps.now()) {
        await expirePayment(deps, current, requestId);
      }
      const latest = (await findPaymentById(deps.db, payment.id)) ?? current;
      return { status: 200, body: toFullPayment(latest) };
    },
  };
}
