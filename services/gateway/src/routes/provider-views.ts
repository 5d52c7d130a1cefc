import { z } from 'zod';

/** What admins and a provider see of a provider: never its key or signing secret. */
export const ProviderView = z.object({
  id: z.string(),
  name: z.string(),
  signingSecretHint: z.string(),
  mappingConfigured: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** A provider's declarative mapping of proprietary settlement payloads (null when none). */
export const ProviderMappingView = z.object({
  providerId: z.string(),
  mapping: z.record(z.string(), z.unknown()).nullable(),
});

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
  }),
  matched: reportLines,
  settledWithoutOrder: reportLines,
  orderWithoutSettlement: reportLines,
  amountMismatch: reportLines,
  completedAfterExpiry: reportLines,
});
