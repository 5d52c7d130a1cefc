import { z } from 'zod';
import { Network } from '../network.js';
import { Channel } from './certification.js';

/** What admins and a provider see of a provider: never its key or signing secret. */
export const ProviderView = z.object({
  id: z.string(),
  name: z.string(),
  signingSecretHint: z.string(),
  mappingConfigured: z.boolean(),
  /** The provider's channels carrying the CERTIFIED badge. */
  certifiedChannels: z.array(Channel),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ProviderView = z.infer<typeof ProviderView>;

/** A new provider, or one whose signing secret was rolled: the secret is shown this once. */
export const ProviderWithSigningSecret = z.object({
  id: z.string(),
  name: z.string(),
  signingSecret: z.string(),
});
export type ProviderWithSigningSecret = z.infer<typeof ProviderWithSigningSecret>;

/** A provider's declarative mapping of proprietary settlement payloads (null when none). */
export const ProviderMappingView = z.object({
  providerId: z.string(),
  mapping: z.record(z.string(), z.unknown()).nullable(),
});
export type ProviderMappingView = z.infer<typeof ProviderMappingView>;

const reportLines = z.array(z.record(z.string(), z.unknown()));

/** Orders against settlements of one provider, environment and day. */
export const ReconciliationReport = z.object({
  providerId: z.string(),
  date: z.string(),
  livemode: z.boolean(),
  summary: z.object({
    orders: z.number().int(),
    matched: z.number().int(),
    settledWithoutOrder: z.number().int(),
    orderWithoutSettlement: z.number().int(),
    amountMismatch: z.number().int(),
    completedAfterExpiry: z.number().int(),
    secondOutcome: z.number().int(),
  }),
  matched: reportLines,
  settledWithoutOrder: reportLines,
  orderWithoutSettlement: reportLines,
  amountMismatch: reportLines,
  completedAfterExpiry: reportLines,
  /** Final settlements for an order that already had its outcome: kept, never applied. */
  secondOutcome: reportLines,
});
export type ReconciliationReport = z.infer<typeof ReconciliationReport>;

/** A rail as a provider declares it. */
export const RailInput = z.object({
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
export type RailInput = z.infer<typeof RailInput>;

/** What a provider may change on an existing rail (at least one field). */
export const RailUpdate = z.object({
  priority: RailInput.shape.priority,
  endpoint: z
    .url()
    .optional()
    .describe(
      'Webhook rails only, a public address; a new endpoint puts the rail back to PENDING until it is tested and activated again',
    ),
  supportsPayout: z.boolean().optional(),
});
export type RailUpdate = z.infer<typeof RailUpdate>;

/** A rail as the provider portal shows it: never its secret, only a hint. */
export const RailView = RailInput.extend({
  id: z.string(),
  providerId: z.string(),
  endpoint: z.string().nullable(),
  secretHint: z.string().nullable(),
  status: z.enum(['PENDING', 'TESTED', 'ACTIVE']),
  inService: z
    .boolean()
    .describe(
      'False while the provider has taken the rail out of service: no new order is routed to it; orders already out finish',
    ),
  /** The CERTIFIED badge: every channel the rail serves is certified. */
  certified: z.boolean(),
  /** The channels of the rail that carry the badge (routing prefers the rail on these). */
  certifiedChannels: z.array(Channel),
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
export type RailView = z.infer<typeof RailView>;

/** The answer to an accepted settlement webhook. */
export const SettlementReceipt = z.object({
  received: z.literal(true),
  settlementId: z.string(),
  matched: z.boolean(),
  orderKey: z.string().nullable(),
  status: z.string(),
});
export type SettlementReceipt = z.infer<typeof SettlementReceipt>;
