import { z } from 'zod';
import { DuplicateKeyError, type Operation } from '@mmp/platform';
import {
  AMOUNT_RANGE_MESSAGE,
  Currency,
  HttpUrl,
  appError,
  isAmountInRange,
  newPaymentToken,
  normalizePhone,
  parseCreatePaymentBody,
  parseOrThrow,
  uuid,
  type CreatePaymentBody,
  requireActor,
} from '@mmp/protocol';
import { toCreateResponse, toSnapshot, type Payment, type PaymentCustomer } from '../domain/payment.js';
import { referenceKeyOf, type Scope } from '../store/payments.js';
import { idempotencyKeyOf, type Deps } from './deps.js';
import { paymentEvent } from './transition.js';

/** What links-checkout sends when a shopper pays a link or a merchant-created session. */
const CreateForSessionBody = z.object({
  checkoutSessionId: z.string().min(1),
  projectId: z.string().min(1),
  livemode: z.boolean(),
  amount: z.number(),
  currency: Currency.default('XAF'),
  description: z.string().max(500).nullable().optional(),
  returnUrl: HttpUrl.nullable().optional(),
  cancelUrl: HttpUrl.nullable().optional(),
  paymentUrl: z.string().nullable().optional(),
  customer: z
    .object({
      email: z.string().nullable().optional(),
      phone: z.string().nullable().optional(),
      name: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
  customerId: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
type CreateForSessionBody = z.infer<typeof CreateForSessionBody>;

type NewPayment = {
  id: string;
  token: string;
  scope: Scope;
  body: Omit<CreatePaymentBody, 'amount' | 'currency'> & { amount: number; currency: string };
  checkoutSessionId: string | null;
  paymentUrl: string | null;
  sessionKey?: string;
  idempotencyId: string | null;
};

function customerOf(
  input: CreatePaymentBody['customer'] | CreateForSessionBody['customer'],
): PaymentCustomer | null {
  if (!input) return null;
  return { email: input.email ?? null, phone: input.phone ?? null, name: input.name ?? null };
}

function buildPayment(deps: Deps, input: NewPayment): Payment {
  const now = deps.now();
  const at = now.toISOString();
  const { body, scope } = input;
  const customer = customerOf(body.customer);
  const expiresAt = new Date(now.getTime() + deps.settings.paymentTtlSeconds * 1000).toISOString();
  const phone = customer?.phone ? (normalizePhone(customer.phone, 'CM')?.e164 ?? customer.phone) : null;
  return {
    _id: input.id,
    id: input.id,
    token: input.token,
    projectId: scope.projectId,
    livemode: scope.livemode,
    reference: body.reference ?? null,
    ...(body.reference ? { referenceKey: referenceKeyOf(scope, body.reference) } : {}),
    amount: body.amount,
    currency: body.currency,
    status: 'PENDING',
    paymentMethod: 'UNKNOWN',
    paymentUrl: input.paymentUrl,
    payerPhone: phone,
    payerName: customer?.name ?? null,
    payerEmail: customer?.email ?? null,
    description: body.description ?? null,
    returnUrl: body.returnUrl ?? null,
    cancelUrl: body.cancelUrl ?? null,
    userId: body.userId?.toLowerCase() ?? null,
    customerId: body.customerId ?? null,
    customer,
    metadata: body.metadata ?? {},
    checkoutSessionId: input.checkoutSessionId,
    ...(input.sessionKey ? { sessionKey: input.sessionKey } : {}),
    idempotencyId: input.idempotencyId,
    failureCode: null,
    failureReason: null,
    refundedAmount: 0,
    appliedSettlements: [],
    initiatedAt: null,
    expiresAt,
    openUntil: expiresAt,
    createdAt: at,
    updatedAt: at,
    completedAt: null,
    timeline: [],
    version: 0,
  };
}

/** Stores the payment with its `payment.created` event in one write. */
async function insertPayment(deps: Deps, draft: Payment, requestId: string): Promise<Payment> {
  const event = paymentEvent('payment.created', draft, draft.createdAt);
  const payment: Payment = {
    ...draft,
    timeline: [{ id: event.id, type: event.type, status: 'PENDING', at: draft.createdAt }],
  };
  await deps.outbox.insert(deps.db.payments, payment, [event], requestId);
  return payment;
}

async function createMerchantPayment(
  deps: Deps,
  scope: Scope,
  body: CreatePaymentBody,
  idempotencyId: string | null,
  requestId: string,
) {
  const duplicate = () =>
    appError('duplicate_transaction', `A payment with reference '${body.reference}' already exists.`);
  if (
    body.reference &&
    (await deps.db.payments.findOne({ referenceKey: referenceKeyOf(scope, body.reference) }))
  )
    throw duplicate();
  const id = uuid();
  const token = newPaymentToken();
  const expiresAt = new Date(deps.now().getTime() + deps.settings.paymentTtlSeconds * 1000).toISOString();
  // The hosted page's session first, so the payment is stored with its paymentUrl; a
  // session left behind by a failure below expires on its own.
  const session = await deps.services.command<{ id: string; url: string }>(
    'links-checkout',
    'sessions.create-for-payment',
    {
      paymentId: id,
      token,
      projectId: scope.projectId,
      livemode: scope.livemode,
      amount: body.amount,
      currency: body.currency,
      description: body.description ?? null,
      returnUrl: body.returnUrl ?? null,
      cancelUrl: body.cancelUrl ?? null,
      customer: body.customer ?? null,
      expiresAt,
    },
    { requestId },
  );
  const draft = buildPayment(deps, {
    id,
    token,
    scope,
    body,
    checkoutSessionId: session.id,
    paymentUrl: session.url,
    idempotencyId,
  });
  try {
    return await insertPayment(deps, draft, requestId);
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw duplicate();
    throw error;
  }
}

export function createOperations(deps: Deps): Record<string, Operation> {
  return {
    async create(request, { actor, requestId }) {
      const merchant = requireActor(actor, ['merchant']);
      const parsed = parseCreatePaymentBody(request.body ?? {});
      if (!parsed.ok) throw parsed.error;
      const scope = { projectId: merchant.projectId, livemode: merchant.livemode };
      const key = idempotencyKeyOf(request.headers);
      return deps.idempotency.run(
        { operation: 'create', ...scope },
        key,
        request.body,
        async (idempotencyId, recovering) => {
          // A holder of this key crashed after storing the payment but before its reply.
          const earlier = recovering ? await deps.db.payments.findOne({ idempotencyId }) : null;
          const payment =
            earlier ?? (await createMerchantPayment(deps, scope, parsed.value, idempotencyId, requestId));
          return { status: 201, body: toCreateResponse(payment) };
        },
      );
    },

    async 'create-for-session'(request, { actor, requestId }) {
      requireActor(actor, ['service']);
      const body = parseOrThrow(CreateForSessionBody, request.body ?? {});
      if (!isAmountInRange(body.amount)) throw appError('invalid_amount', AMOUNT_RANGE_MESSAGE);
      const sessionKey = body.checkoutSessionId;
      const existing = await deps.db.payments.findOne({ sessionKey });
      if (existing) return { status: 200, body: toSnapshot(existing) };
      const draft = buildPayment(deps, {
        id: uuid(),
        token: newPaymentToken(),
        scope: { projectId: body.projectId, livemode: body.livemode },
        body: {
          amount: body.amount,
          currency: body.currency,
          description: body.description ?? undefined,
          returnUrl: body.returnUrl ?? undefined,
          cancelUrl: body.cancelUrl ?? undefined,
          customerId: body.customerId ?? undefined,
          metadata: body.metadata as CreatePaymentBody['metadata'],
          customer: body.customer
            ? {
                email: body.customer.email ?? undefined,
                phone: body.customer.phone ?? undefined,
                name: body.customer.name ?? undefined,
              }
            : undefined,
        },
        checkoutSessionId: body.checkoutSessionId,
        paymentUrl: body.paymentUrl ?? null,
        sessionKey,
        idempotencyId: null,
      });
      try {
        return { status: 201, body: toSnapshot(await insertPayment(deps, draft, requestId)) };
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        // The same session asked twice at once: both get the one payment.
        const winner = await deps.db.payments.findOne({ sessionKey });
        if (!winner) throw error;
        return { status: 200, body: toSnapshot(winner) };
      }
    },
  };
}
