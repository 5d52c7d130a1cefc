import { z } from 'zod';
import { CreateCheckoutSessionBody, PayCheckoutSessionBody, checkoutApi, pagesApi } from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';

const sessionParams = z.object({ id: z.string().describe('Checkout session id (cs_…)') });
const payBody = PayCheckoutSessionBody.pick({ paymentMethod: true, phone: true });
const merchant = routeGroup({ auth: 'merchant', errorForm: 'simple', tag: 'Checkout' });
const payer = routeGroup({ auth: 'public', errorForm: 'simple', tag: 'Checkout' });
const page = routeGroup({ auth: 'public', errorForm: 'simple', tag: 'Pages', page: true });

/** Checkout sessions (merchant create, public reads and actions) and the hosted pages' files. */
export const checkoutRoutes: ForwardedRoute[] = [
  merchant('POST', '/v1/checkout/sessions', checkoutApi.create, { body: CreateCheckoutSessionBody }),
  payer('GET', '/v1/checkout/sessions/:id', checkoutApi.retrieve, { params: sessionParams }),
  payer('POST', '/v1/checkout/sessions/:id/pay', checkoutApi.pay, { params: sessionParams, body: payBody }),
  payer('GET', '/v1/checkout/sessions/:id/status', checkoutApi.status, { params: sessionParams }),
  payer('POST', '/v1/checkout/sessions/:id/cancel', checkoutApi.cancel, { params: sessionParams }),
  page('GET', '/checkout/:sessionId', pagesApi.checkout),
  page('GET', '/assets/:file', pagesApi.asset),
];
