import { z } from 'zod';
import { httpOperationsOf } from '../bus/contract.js';
import { CheckoutSessionState, HostedCheckoutSession } from '../merchant/checkout-session.js';
import type { Scope } from '../scopes.js';
import { PaymentLink, PaymentLinkList, PublicPaymentLink } from '../merchant/payment-link.js';

/** Where payers reach the hosted pages (the gateway's origin), without a trailing slash. */
export const PublicUrlEnv = z.object({
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
    .default('http://127.0.0.1:3000')
    .transform((url) => url.replace(/\/+$/, '')),
});

/**
 * A checkout session's hosted page. Payments mints a merchant payment's session id and
 * gives this as its paymentUrl; links-checkout serves the page, so both build it here.
 */
export function checkoutPageUrl(publicUrl: string, sessionId: string): string {
  return `${publicUrl}/checkout/${sessionId}`;
}

const merchantOperations = (scope: Scope) =>
  httpOperationsOf({ service: 'links-checkout', actors: ['merchant'], scope });
const linkReader = merchantOperations('payment_links:read');
const linkWriter = merchantOperations('payment_links:write');
const sessionWriter = merchantOperations('checkout_sessions:write');
const payerFacing = httpOperationsOf({ service: 'links-checkout', actors: ['public'] });
/** What parsing a JSON body may answer (services/links-checkout handlers/schemas.ts). */
const BODY_ERRORS = [
  'validation_error',
  'invalid_request',
  'invalid_amount',
  'invalid_currency',
  'missing_required_field',
] as const;
/** A page or an asset: its body is the document itself. */
const Document = z.string();

/** Payment links: the merchant's CRUD, and what a payer reads and starts publicly. */
export const linksApi = {
  create: linkWriter({
    name: 'links.create',
    responses: { 201: PaymentLink },
    errors: [...BODY_ERRORS, 'idempotency_conflict'],
    summary: 'Create a payment link (fixed or variable amount) with an 8-character short code',
  }),
  list: linkReader({
    name: 'links.list',
    responses: { 200: PaymentLinkList },
    errors: ['invalid_request'],
    summary: 'List payment links, newest first',
  }),
  retrieve: linkReader({
    name: 'links.retrieve',
    responses: { 200: PaymentLink },
    errors: ['resource_not_found'],
    summary: 'Retrieve a payment link',
  }),
  update: linkWriter({
    name: 'links.update',
    responses: { 200: PaymentLink },
    errors: [...BODY_ERRORS, 'resource_not_found', 'invalid_state'],
    summary: 'Update a payment link; status ACTIVE or INACTIVE switches it on or off',
  }),
  delete: linkWriter({
    name: 'links.delete',
    responses: { 200: z.object({ id: z.string(), deleted: z.literal(true) }) },
    errors: ['resource_not_found'],
    summary:
      'Delete a payment link: gone from the API and its page (404), new payments refused; its sessions and payments are kept',
  }),
  public: payerFacing({
    name: 'links.public',
    responses: { 200: PublicPaymentLink },
    errors: ['resource_not_found'],
    summary: 'Resolve a payment link publicly (200 with status for INACTIVE and EXPIRED links too)',
  }),
  start: payerFacing({
    name: 'links.start',
    responses: { 201: HostedCheckoutSession },
    errors: [...BODY_ERRORS, 'invalid_email', 'invalid_phone', 'resource_not_found'],
    summary:
      'Start paying a link: creates a checkout session (400 when the link is inactive, expired or used up)',
  }),
};

/** Checkout sessions: the merchant's create, the hosted page's public reads and actions. */
export const checkoutApi = {
  create: sessionWriter({
    name: 'sessions.create',
    responses: { 201: HostedCheckoutSession },
    errors: [...BODY_ERRORS, 'invalid_email', 'idempotency_conflict'],
    summary: 'Create a checkout session; send the payer to its url',
  }),
  retrieve: payerFacing({
    name: 'sessions.retrieve',
    responses: { 200: HostedCheckoutSession },
    errors: ['resource_not_found'],
    summary: 'Read a checkout session (public; what the hosted page shows)',
  }),
  pay: payerFacing({
    name: 'sessions.pay',
    responses: { 200: CheckoutSessionState },
    errors: [
      ...BODY_ERRORS,
      'invalid_phone',
      'resource_not_found',
      'invalid_state',
      'payment_expired',
      'payment_cancelled',
    ],
    summary:
      'Pay a checkout session with an operator and a phone number; the payer then confirms the USSD prompt',
  }),
  status: payerFacing({
    name: 'sessions.status',
    responses: { 200: CheckoutSessionState },
    errors: ['resource_not_found'],
    summary: 'Poll the state of a checkout session',
  }),
  cancel: payerFacing({
    name: 'sessions.cancel',
    responses: { 200: CheckoutSessionState },
    errors: ['resource_not_found', 'invalid_state', 'payment_expired', 'payment_cancelled'],
    summary: 'Cancel a checkout session that is not finished',
  }),
};

/** The hosted pages and their files (not JSON; not in the API reference). */
export const pagesApi = {
  checkout: payerFacing({
    name: 'pages.checkout',
    responses: { 200: Document },
    summary: 'The hosted payment page',
  }),
  link: payerFacing({
    name: 'pages.link',
    responses: { 200: Document },
    summary: 'The payment-link page',
  }),
  asset: payerFacing({
    name: 'pages.asset',
    responses: { 200: Document },
    summary: 'Script and styles of the hosted pages',
  }),
};
