import { z } from 'zod';
import { CreatePaymentBody, PaymentListQuery, PaymentRetrieveQuery, paymentsApi } from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';

const tokenParams = z.object({ token: z.string().describe('Payment token (pay_…)') });
const userParams = z.object({ userId: z.uuid() });
const limitQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).optional() });
const merchant = routeGroup({ auth: 'merchant', errorForm: 'simple', tag: 'Payments' });

/** The merchant payment API, served by the payments service (simple error form). */
export const paymentsRoutes: ForwardedRoute[] = [
  merchant('POST', '/v1/payments', paymentsApi.create, { body: CreatePaymentBody }),
  merchant('GET', '/v1/payments', paymentsApi.list, { query: PaymentListQuery }),
  merchant('GET', '/v1/payments/user/:userId', paymentsApi.listByUser, {
    params: userParams,
    query: limitQuery,
  }),
  merchant('GET', '/v1/payments/:token', paymentsApi.retrieve, {
    params: tokenParams,
    query: PaymentRetrieveQuery,
  }),
  merchant('GET', '/v1/payments/:token/verify', paymentsApi.verify, { params: tokenParams }),
  merchant('POST', '/v1/payments/:token/cancel', paymentsApi.cancel, { params: tokenParams }),
];
