import { z } from 'zod';
import {
  CreatePaymentBody,
  PaymentListQuery,
  PaymentRetrieveQuery,
  notices,
  paymentsApi as api,
} from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';

const byToken = { params: z.object({ token: z.string().describe('Payment token (pay_…)') }) };
const byUser = {
  params: z.object({ userId: z.uuid() }),
  query: z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }),
};
const merchant = routeGroup({ auth: 'merchant', errorForm: 'simple', tag: 'Payments' });

/** The merchant payment API, served by the payments service (simple error form). */
export const paymentsRoutes: ForwardedRoute[] = [
  merchant('POST', '/v1/payments', api.create, { body: CreatePaymentBody }),
  merchant('GET', '/v1/payments', api.list, { query: PaymentListQuery }),
  merchant('GET', '/v1/payments/user/:userId', api.listByUser, byUser),
  {
    ...merchant('GET', '/v1/payments/:token', api.retrieve, { ...byToken, query: PaymentRetrieveQuery }),
    // Merchants poll a payment while its payer confirms: the same answer until it changes.
    keptUntil: { notice: notices.paymentChanged, param: 'token' },
  },
  merchant('GET', '/v1/payments/:token/verify', api.verify, byToken),
  merchant('POST', '/v1/payments/:token/cancel', api.cancel, byToken),
];
