import { z } from 'zod';
import { eventsOf, httpOperationsOf, operationsOf } from '../bus/contract.js';
import { HEADER } from '../bus/envelope.js';
import type { ServiceName } from '../bus/subjects.js';
import { PaymentEventData, PaymentInitiatedData, PaymentSnapshot } from '../bus/events.js';
import { HttpUrl } from '../merchant/common.js';
import { Currency } from '../money.js';
import { Network } from '../network.js';
import { Payment, PaymentCreateResponse, PaymentList, PaymentListItem } from '../merchant/payment.js';
import { WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret } from '../merchant/webhook-endpoint.js';

const merchant = ['merchant'] as const;
const paymentReader = httpOperationsOf({ service: 'payments', actors: merchant, scope: 'payments:read' });
const paymentWriter = httpOperationsOf({ service: 'payments', actors: merchant, scope: 'payments:write' });
const webhookReader = httpOperationsOf({ service: 'payments', actors: merchant, scope: 'webhooks:read' });
const webhookWriter = httpOperationsOf({ service: 'payments', actors: merchant, scope: 'webhooks:write' });

/**
 * List items carry the relations `expand` asks for, as retrieve does, so an expanded list is
 * checked like any other answer.
 */
const ExpandedPaymentList = PaymentList.extend({
  data: z.array(
    PaymentListItem.extend(
      Payment.pick({ customer: true, project: true, refunds: true, events: true }).shape,
    ).strict(),
  ),
});

/** The merchant payment API (simple error form). */
export const paymentsApi = {
  create: paymentWriter({
    name: 'create',
    responses: { 201: PaymentCreateResponse },
    errors: [
      'validation_error',
      'invalid_request',
      'invalid_amount',
      'invalid_currency',
      'invalid_email',
      'missing_required_field',
      'duplicate_transaction',
      'idempotency_conflict',
    ],
    summary: 'Create a payment; Idempotency-Key replays the first answer for 24 hours',
  }),
  list: paymentReader({
    name: 'list',
    responses: { 200: ExpandedPaymentList },
    errors: ['invalid_request'],
    summary: 'List payments, newest first, with filters, search and cursor or page pagination',
  }),
  listByUser: paymentReader({
    name: 'list-by-user',
    responses: { 200: z.array(Payment) },
    errors: ['invalid_request'],
    summary: "A user's payments, newest first (limit default and max 100)",
  }),
  retrieve: paymentReader({
    name: 'retrieve',
    responses: { 200: Payment },
    errors: ['invalid_request', 'resource_not_found'],
    summary: 'Retrieve a payment; expand[] or expand adds customer, project, refunds, events',
  }),
  verify: paymentReader({
    name: 'verify',
    responses: { 200: Payment },
    errors: ['resource_not_found'],
    summary: 'Re-check a payment with its provider route, apply what is learnt, and return it',
  }),
  cancel: paymentWriter({
    name: 'cancel',
    responses: { 200: Payment },
    errors: ['invalid_request', 'resource_not_found', 'invalid_state', 'idempotency_conflict'],
    summary: 'Cancel a PENDING payment the payer has not initiated yet',
  }),
};

/** Merchant webhook endpoints and their deliveries (envelope error form). */
export const webhookEndpointsApi = {
  create: webhookWriter({
    name: 'webhook-endpoints.create',
    responses: { 201: WebhookEndpointWithSecret },
    errors: ['validation_error', 'invalid_request', 'idempotency_conflict'],
    summary: 'Add a webhook endpoint; its whsec_ secret is shown only in this answer',
  }),
  list: webhookReader({
    name: 'webhook-endpoints.list',
    responses: { 200: z.object({ data: z.array(WebhookEndpoint), has_more: z.boolean() }) },
    summary: 'List the webhook endpoints of this project and environment',
  }),
  get: webhookReader({
    name: 'webhook-endpoints.get',
    responses: { 200: WebhookEndpoint },
    errors: ['resource_not_found'],
    summary: 'Retrieve a webhook endpoint (its secret only as a hint)',
  }),
  update: webhookWriter({
    name: 'webhook-endpoints.update',
    responses: { 200: WebhookEndpoint },
    errors: ['validation_error', 'resource_not_found'],
    summary: 'Change the URL, description, subscribed events or status of an endpoint',
  }),
  delete: webhookWriter({
    name: 'webhook-endpoints.delete',
    responses: { 200: z.object({ id: z.string(), deleted: z.literal(true) }) },
    errors: ['resource_not_found'],
    summary: 'Delete an endpoint; its pending deliveries are abandoned',
  }),
  rollSecret: webhookWriter({
    name: 'webhook-endpoints.roll-secret',
    responses: { 200: WebhookEndpointWithSecret },
    errors: ['resource_not_found', 'invalid_state', 'idempotency_conflict'],
    summary: 'Replace the signing secret at once; the new whsec_ secret is shown only in this answer',
  }),
  deliveries: webhookReader({
    name: 'webhook-endpoints.deliveries',
    responses: { 200: z.object({ data: z.array(WebhookDelivery), has_more: z.boolean() }) },
    errors: ['invalid_request', 'resource_not_found'],
    summary: 'Deliveries to an endpoint, newest first, with every attempt (status code, latency, error)',
  }),
  redeliver: webhookWriter({
    name: 'webhook-endpoints.redeliver',
    responses: { 202: WebhookDelivery },
    errors: ['resource_not_found', 'invalid_state', 'idempotency_conflict'],
    summary: 'Send a delivery again now, with the same event id and body',
  }),
};

/**
 * What links-checkout sends when a payer pays a link's or a merchant's checkout session; the
 * payment's paymentUrl is that session's page.
 */
export const CreatePaymentForSession = z.object({
  checkoutSessionId: z.string().min(1),
  projectId: z.string().min(1),
  livemode: z.boolean(),
  amount: z.number(),
  currency: Currency.default('XAF'),
  description: z.string().max(500).nullable().optional(),
  returnUrl: HttpUrl.nullable().optional(),
  cancelUrl: HttpUrl.nullable().optional(),
  customer: z
    .object({
      email: z.string().nullable().optional(),
      phone: z.string().nullable().optional(),
      name: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
  customerId: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});
export type CreatePaymentForSession = z.infer<typeof CreatePaymentForSession>;

const forCheckout = operationsOf({ service: 'payments', actors: ['service'], callers: ['links-checkout'] });

/** Operations links-checkout calls on a payer's behalf. */
export const paymentsForCheckout = {
  createForSession: forCheckout({
    name: 'create-for-session',
    request: CreatePaymentForSession,
    reply: PaymentSnapshot,
    errors: ['validation_error', 'invalid_amount'],
    summary:
      'The payment of a checkout session, made once per session (the same session asked again gets it)',
  }),
  initiate: forCheckout({
    name: 'initiate',
    request: z.object({ token: z.string().min(1), paymentMethod: Network, phone: z.string().min(1).max(32) }),
    reply: z.object({ payment: PaymentSnapshot }),
    errors: [
      'validation_error',
      'resource_not_found',
      'invalid_phone',
      'invalid_state',
      'payment_expired',
      'payment_cancelled',
    ],
    summary:
      'The payer chose an operator and a number: the payment is initiated and routed (the same choice again answers the same payment)',
  }),
  retrieve: forCheckout({
    name: 'retrieve-internal',
    request: z.union([
      z.object({ token: z.string().min(1) }),
      z.object({ id: z.string().min(1) }),
      z.object({ checkoutSessionId: z.string().min(1) }),
    ]),
    reply: PaymentSnapshot,
    errors: ['resource_not_found'],
    summary:
      'A payment by token, id or checkout session (a payer may open a session before payment.created reached links-checkout)',
  }),
  cancelForSession: forCheckout({
    name: 'cancel-for-session',
    request: z.object({ token: z.string().min(1), checkoutSessionId: z.string().min(1).optional() }),
    reply: PaymentSnapshot,
    errors: ['resource_not_found', 'invalid_state'],
    summary: 'The payer cancelled the session: its payment is cancelled unless already settled',
  }),
};

const PAYMENT_CONSUMERS: readonly ServiceName[] = ['customers', 'links-checkout'];

const paymentsEvent = eventsOf('payments');
/**
 * Whether the payment names a customer, so customers passes over the events of the others
 * (most payments) without reading them.
 */
const customerHeader = (data: PaymentEventData) => ({
  [HEADER.hasCustomer]: data.payment.customerId ? 'true' : 'false',
});
const paymentEvent = <T extends string>(type: T, summary: string, consumers = PAYMENT_CONSUMERS) =>
  paymentsEvent({ type, data: PaymentEventData, consumers, summary, headers: customerHeader });

/** Ends of a payment: the merchant hears of each through its webhooks. */
const ENDED_CONSUMERS: readonly ServiceName[] = ['customers', 'links-checkout', 'payments'];

export const paymentEvents = {
  created: paymentEvent(
    'payment.created',
    'A payment was created (PENDING), its hosted page at paymentUrl (links-checkout opens that session when the payer first comes)',
    ['customers'],
  ),
  initiated: paymentsEvent({
    type: 'payment.initiated',
    data: PaymentInitiatedData,
    consumers: ['customers', 'links-checkout', 'provider-router'],
    summary: 'The payer chose an operator and a number; provider-router routes the order',
    headers: customerHeader,
  }),
  processing: paymentEvent('payment.processing', 'A rail accepted the order: the payer sees the USSD prompt'),
  completed: paymentEvent('payment.completed', 'The settlement says the money moved', ENDED_CONSUMERS),
  failed: paymentEvent('payment.failed', 'The payment failed (failureCode says why)', ENDED_CONSUMERS),
  expired: paymentEvent('payment.expired', 'The payer did not confirm in time', ENDED_CONSUMERS),
  cancelled: paymentEvent('payment.cancelled', 'The merchant or the payer cancelled', ENDED_CONSUMERS),
  refunded: paymentEvent('payment.refunded', 'Fully refunded', ENDED_CONSUMERS),
  partiallyRefunded: paymentEvent('payment.partially_refunded', 'Partly refunded', ENDED_CONSUMERS),
};

/** Every payment event, for consumers that follow a payment's whole life. */
export const PAYMENT_EVENTS = Object.values(paymentEvents);
