import { z } from 'zod';
import type { ForwardedRoute } from './route.js';
import { ProviderView } from './provider-views.js';

const portal = {
  auth: 'provider',
  errorForm: 'envelope',
  service: 'provider-router',
  tag: 'Provider portal',
} as const;

const railParams = z.object({ railId: z.string() });
const Network = z.enum(['ORANGE_MONEY', 'MTN_MOMO', 'WAVE', 'MOOV_MONEY']);

const RailInput = z.object({
  transport: z.enum(['webhook', 'pull']),
  endpoint: z
    .url()
    .optional()
    .describe('Webhook rails: the HTTPS endpoint receiving signed health.check and payment.execute calls'),
  networks: z.array(Network).min(1),
  countries: z.array(z.string().length(2)).min(1).describe('ISO 3166-1 alpha-2'),
  currencies: z.array(z.enum(['XAF', 'XOF'])).min(1),
  supportsPayout: z.boolean().optional(),
  environment: z.enum(['sandbox', 'live']),
  priority: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .optional()
    .describe(
      "Lower is preferred, after certified rails; default 100. The sandbox provider's rail is 50: a sandbox rail below 50 gets sandbox orders before it",
    ),
});

const Rail = RailInput.extend({
  id: z.string(),
  providerId: z.string(),
  endpoint: z.string().nullable(),
  secretHint: z.string().nullable(),
  status: z.enum(['PENDING', 'TESTED', 'ACTIVE']),
  certified: z.boolean(),
  lastTest: z
    .object({
      ok: z.boolean(),
      reason: z.string(),
      httpStatus: z.number().nullable(),
      latencyMs: z.number().nullable(),
      at: z.string(),
    })
    .nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** Provider portal (provider API key `sk_…` as Bearer): the provider's own rails and the protocol schema. */
export const providerPortalRoutes: ForwardedRoute[] = [
  {
    ...portal,
    method: 'GET',
    url: '/v1/provider/profile',
    operation: 'providers.get',
    summary: 'The authenticated provider',
    schema: { responses: { 200: ProviderView } },
  },
  {
    ...portal,
    method: 'POST',
    url: '/v1/provider/rails',
    operation: 'rails.create',
    summary: 'Create a rail in PENDING; a webhook rail gets its whsec_ secret, returned this once',
    schema: { body: RailInput, responses: { 201: Rail.extend({ secret: z.string().optional() }) } },
  },
  {
    ...portal,
    method: 'GET',
    url: '/v1/provider/rails',
    operation: 'rails.list',
    summary: "List the provider's rails (never their secrets)",
    schema: { responses: { 200: z.object({ data: z.array(Rail) }) } },
  },
  {
    ...portal,
    method: 'GET',
    url: '/v1/provider/rails/:railId',
    operation: 'rails.get',
    summary: 'Read a rail: state, last test result and reason, certified badge',
    schema: { params: railParams, responses: { 200: Rail } },
  },
  {
    ...portal,
    method: 'POST',
    url: '/v1/provider/rails/:railId/test',
    operation: 'rails.test',
    summary:
      'Test a rail: a signed health.check with a fresh nonce (5 s); HTTP 200 echoing the nonce makes a PENDING rail TESTED, anything else leaves it PENDING with the reason',
    schema: { params: railParams, responses: { 200: Rail } },
  },
  {
    ...portal,
    method: 'POST',
    url: '/v1/provider/rails/:railId/activate',
    operation: 'rails.activate',
    summary:
      'Activate a TESTED rail; a live rail also needs the CERTIFIED badge (409 invalid_state otherwise)',
    schema: { params: railParams, responses: { 200: Rail } },
  },
  {
    ...portal,
    method: 'POST',
    url: '/v1/provider/rails/:railId/roll-secret',
    operation: 'rails.roll-secret',
    summary: "Roll a webhook rail's whsec_ secret; the new secret is returned once",
    schema: { params: railParams, responses: { 200: Rail.extend({ secret: z.string() }) } },
  },
  {
    ...portal,
    method: 'GET',
    url: '/v1/provider/agent/assist/protocol-v1-schema',
    operation: 'schema',
    summary: 'JSON Schema (draft 2020-12) of SettlementEvent v1, generated from the schema that validates',
    schema: { responses: { 200: z.record(z.string(), z.unknown()) } },
  },
];
