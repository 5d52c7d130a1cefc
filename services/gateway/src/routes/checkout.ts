import { z } from 'zod';
import {
  CheckoutSession,
  CheckoutSessionStatusResponse,
  CreateCheckoutSessionBody,
  PayCheckoutSessionBody,
} from '@mmp/protocol';
import type { ForwardedRoute } from './route.js';

const sessionParams = z.object({ id: z.string().describe('Checkout session id (cs_…)') });
const payBody = PayCheckoutSessionBody.pick({ paymentMethod: true, phone: true });
/** What the hosted page also needs: environment, operators it may offer, the failure and whether to offer a retry. */
export const sessionView = CheckoutSession.extend({
  livemode: z.boolean(),
  operators: z.array(z.string()),
  failureCode: z.string().nullable(),
  failureReason: z.string().nullable(),
  retryable: z.boolean(),
});
const statusView = CheckoutSessionStatusResponse.extend({
  paymentStatus: z.string().nullable(),
  failureCode: z.string().nullable(),
  failureReason: z.string().nullable(),
  expiresAt: z.string(),
});

/** Checkout sessions (merchant create, public reads and actions) and the hosted pages' files. */
export const checkoutRoutes: ForwardedRoute[] = [
  {
    method: 'POST',
    url: '/v1/checkout/sessions',
    service: 'links-checkout',
    operation: 'sessions.create',
    auth: 'merchant',
    scope: 'checkout_sessions:write',
    errorForm: 'simple',
    summary: 'Create a checkout session; send the payer to its url',
    tag: 'Checkout',
    schema: { body: CreateCheckoutSessionBody, responses: { 201: sessionView } },
  },
  {
    method: 'GET',
    url: '/v1/checkout/sessions/:id',
    service: 'links-checkout',
    operation: 'sessions.retrieve',
    auth: 'public',
    errorForm: 'simple',
    summary: 'Read a checkout session (public; what the hosted page shows)',
    tag: 'Checkout',
    schema: { params: sessionParams, responses: { 200: sessionView } },
  },
  {
    method: 'POST',
    url: '/v1/checkout/sessions/:id/pay',
    service: 'links-checkout',
    operation: 'sessions.pay',
    auth: 'public',
    errorForm: 'simple',
    summary:
      'Pay a checkout session with an operator and a phone number; the payer then confirms the USSD prompt',
    tag: 'Checkout',
    schema: { params: sessionParams, body: payBody, responses: { 200: statusView } },
  },
  {
    method: 'GET',
    url: '/v1/checkout/sessions/:id/status',
    service: 'links-checkout',
    operation: 'sessions.status',
    auth: 'public',
    errorForm: 'simple',
    summary: 'Poll the state of a checkout session',
    tag: 'Checkout',
    schema: { params: sessionParams, responses: { 200: statusView } },
  },
  {
    method: 'POST',
    url: '/v1/checkout/sessions/:id/cancel',
    service: 'links-checkout',
    operation: 'sessions.cancel',
    auth: 'public',
    errorForm: 'simple',
    summary: 'Cancel a checkout session that is not finished',
    tag: 'Checkout',
    schema: { params: sessionParams, responses: { 200: statusView } },
  },
  {
    method: 'GET',
    url: '/checkout/:sessionId',
    service: 'links-checkout',
    operation: 'pages.checkout',
    auth: 'public',
    errorForm: 'simple',
    page: true,
    summary: 'The hosted payment page',
    tag: 'Pages',
  },
  {
    method: 'GET',
    url: '/assets/:file',
    service: 'links-checkout',
    operation: 'pages.asset',
    auth: 'public',
    errorForm: 'simple',
    page: true,
    summary: 'Script and styles of the hosted pages',
    tag: 'Pages',
  },
];
