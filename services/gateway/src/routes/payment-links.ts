import { z } from 'zod';
import {
  CreatePaymentLinkBody,
  ShortCode,
  StartPaymentLinkBody,
  UpdatePaymentLinkBody,
  linksApi,
  pagesApi,
} from '@mmp/protocol';
import { resourceRoutes, routeGroup, type ForwardedRoute } from './route.js';

const idParams = z.object({ id: z.uuid().describe('Payment link id') });
const codeParams = z.object({ shortCode: ShortCode.describe('8 alphanumeric characters') });
const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  page: z.coerce.number().int().min(1).optional(),
  status: z.enum(['ACTIVE', 'INACTIVE', 'EXPIRED']).optional(),
});
const start = { params: codeParams, body: StartPaymentLinkBody };
const shared = { errorForm: 'simple', tag: 'Payment links' } as const;
const merchant = routeGroup({ ...shared, auth: 'merchant' });
const payer = routeGroup({ ...shared, auth: 'public' });
const page = routeGroup({ auth: 'public', errorForm: 'simple', tag: 'Pages', page: true });

/** Payment links (merchant CRUD) and their public read, page and start, served by links-checkout. */
export const paymentLinksRoutes: ForwardedRoute[] = [
  ...resourceRoutes(merchant, '/v1/payment-links', linksApi, {
    create: CreatePaymentLinkBody,
    update: UpdatePaymentLinkBody,
    id: idParams,
    list: listQuery,
  }),
  payer('GET', '/v1/pay/:shortCode', linksApi.public, { params: codeParams }),
  payer('POST', '/v1/pay/:shortCode/sessions', linksApi.start, start),
  page('GET', '/pay/:shortCode', pagesApi.link),
];
