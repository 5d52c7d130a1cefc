import { z } from 'zod';
import {
  CreatePaymentLinkBody,
  PaymentLink,
  PublicPaymentLink,
  ShortCode,
  UpdatePaymentLinkBody,
} from '@mmp/protocol';
import type { ForwardedRoute } from './route.js';
import { sessionView } from './checkout.js';

const idParams = z.object({ id: z.uuid().describe('Payment link id') });
const codeParams = z.object({ shortCode: ShortCode.describe('8 alphanumeric characters') });
const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  page: z.coerce.number().int().min(1).optional(),
  status: z.enum(['ACTIVE', 'INACTIVE', 'EXPIRED']).optional(),
});
const linkList = z.object({
  data: z.array(PaymentLink),
  has_more: z.boolean(),
  meta: z.object({ limit: z.number().int(), total: z.number().int(), page: z.number().int() }),
});
const startBody = z.object({
  amount: z
    .number()
    .int()
    .optional()
    .describe('Required for variable-amount links, within minAmount and maxAmount'),
  name: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  customFields: z
    .record(z.string(), z.string())
    .optional()
    .describe("Answers to the link's custom fields, by key"),
});

/** Payment links (merchant CRUD) and their public read, page and start, served by links-checkout. */
export const paymentLinksRoutes: ForwardedRoute[] = [
  {
    method: 'POST',
    url: '/v1/payment-links',
    service: 'links-checkout',
    operation: 'links.create',
    auth: 'merchant',
    scope: 'payment_links:write',
    errorForm: 'simple',
    summary: 'Create a payment link (fixed or variable amount) with an 8-character short code',
    tag: 'Payment links',
    schema: { body: CreatePaymentLinkBody, responses: { 201: PaymentLink } },
  },
  {
    method: 'GET',
    url: '/v1/payment-links',
    service: 'links-checkout',
    operation: 'links.list',
    auth: 'merchant',
    scope: 'payment_links:read',
    errorForm: 'simple',
    summary: 'List payment links, newest first',
    tag: 'Payment links',
    schema: { query: listQuery, responses: { 200: linkList } },
  },
  {
    method: 'GET',
    url: '/v1/payment-links/:id',
    service: 'links-checkout',
    operation: 'links.retrieve',
    auth: 'merchant',
    scope: 'payment_links:read',
    errorForm: 'simple',
    summary: 'Retrieve a payment link',
    tag: 'Payment links',
    schema: { params: idParams, responses: { 200: PaymentLink } },
  },
  {
    method: 'PATCH',
    url: '/v1/payment-links/:id',
    service: 'links-checkout',
    operation: 'links.update',
    auth: 'merchant',
    scope: 'payment_links:write',
    errorForm: 'simple',
    summary: 'Update a payment link; status ACTIVE or INACTIVE switches it on or off',
    tag: 'Payment links',
    schema: { params: idParams, body: UpdatePaymentLinkBody, responses: { 200: PaymentLink } },
  },
  {
    method: 'DELETE',
    url: '/v1/payment-links/:id',
    service: 'links-checkout',
    operation: 'links.delete',
    auth: 'merchant',
    scope: 'payment_links:write',
    errorForm: 'simple',
    summary:
      'Delete a payment link: gone from the API and its page (404), new payments refused; its sessions and payments are kept',
    tag: 'Payment links',
    schema: { params: idParams, responses: { 200: z.object({ id: z.string(), deleted: z.literal(true) }) } },
  },
  {
    method: 'GET',
    url: '/v1/pay/:shortCode',
    service: 'links-checkout',
    operation: 'links.public',
    auth: 'public',
    errorForm: 'simple',
    summary: 'Resolve a payment link publicly (200 with status for INACTIVE and EXPIRED links too)',
    tag: 'Payment links',
    schema: { params: codeParams, responses: { 200: PublicPaymentLink } },
  },
  {
    method: 'POST',
    url: '/v1/pay/:shortCode/sessions',
    service: 'links-checkout',
    operation: 'links.start',
    auth: 'public',
    errorForm: 'simple',
    summary:
      'Start paying a link: creates a checkout session (400 when the link is inactive, expired or used up)',
    tag: 'Payment links',
    schema: { params: codeParams, body: startBody, responses: { 201: sessionView } },
  },
  {
    method: 'GET',
    url: '/pay/:shortCode',
    service: 'links-checkout',
    operation: 'pages.link',
    auth: 'public',
    errorForm: 'simple',
    page: true,
    summary: 'The payment-link page',
    tag: 'Pages',
  },
];
