import { z } from 'zod';
import {
  CreatePayoutBody,
  CreateRefundBody,
  PayoutListQuery,
  balanceApi,
  payoutsApi,
  refundsApi,
} from '@mmp/protocol';
import { routeGroup, type ForwardedRoute } from './route.js';

const byToken = { params: z.object({ token: z.string().describe('Payment token (pay_…)') }) };
const byRefund = {
  params: z.object({
    token: z.string().describe('Payment token (pay_…)'),
    refundId: z.string().describe('Refund id (rf_…)'),
  }),
};
const byPayout = { params: z.object({ payoutId: z.string().describe('Payout id (po_…)') }) };
const refunds = routeGroup({ auth: 'merchant', errorForm: 'simple', tag: 'Refunds' });
const payouts = routeGroup({ auth: 'merchant', errorForm: 'simple', tag: 'Payouts' });
const balance = routeGroup({ auth: 'merchant', errorForm: 'simple', tag: 'Balance' });
const admin = routeGroup({ auth: 'admin', errorForm: 'envelope', tag: 'Admin' });

/** Refunds, payouts and the balance they draw on, served by the payments service. */
export const transfersRoutes: ForwardedRoute[] = [
  refunds('POST', '/v1/payments/:token/refunds', refundsApi.create, { ...byToken, body: CreateRefundBody }),
  refunds('GET', '/v1/payments/:token/refunds', refundsApi.list, byToken),
  refunds('GET', '/v1/payments/:token/refunds/:refundId', refundsApi.retrieve, byRefund),
  payouts('POST', '/v1/payouts', payoutsApi.create, { body: CreatePayoutBody }),
  payouts('GET', '/v1/payouts', payoutsApi.list, { query: PayoutListQuery }),
  payouts('GET', '/v1/payouts/:payoutId', payoutsApi.retrieve, byPayout),
  balance('GET', '/v1/balance', balanceApi.retrieve),
  admin('POST', '/v1/admin/balance/rebuild', balanceApi.rebuild),
];
