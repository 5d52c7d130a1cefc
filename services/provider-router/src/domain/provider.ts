import { z } from 'zod';
import { randomBase62, timeOrderedBase62, type Channel } from '@mmp/protocol';
import type { ProprietaryMapping } from './mapping.js';

export type Provider = {
  _id: string;
  name: string;
  /** Settlement signing secret, sealed: we must recompute HMACs with it, so no hash. */
  sealedSigningSecret: string;
  signingSecretHint: string;
  mapping: ProprietaryMapping | null;
  createdAt: string;
  updatedAt: string;
};

export const ProviderInput = z
  .object({ name: z.string().trim().min(1, 'name is required').max(100) })
  .strict();

export const newProviderId = (): string => `prv_${randomBase62(24)}`;
export const newRailId = (): string => `rail_${randomBase62(24)}`;
/** Time-ordered: settlements are the router's most written records (see timeOrderedBase62). */
export const newSettlementId = (): string => `stl_${timeOrderedBase62(24)}`;
/** Settlement signing secrets: HMAC keys of ~190 bits, shown once. */
export const newSigningSecret = (): string => `ssec_${randomBase62(32)}`;

export function providerView(provider: Provider, certifiedChannels: Channel[]) {
  return {
    id: provider._id,
    name: provider.name,
    signingSecretHint: provider.signingSecretHint,
    mappingConfigured: provider.mapping !== null,
    certifiedChannels,
    createdAt: provider.createdAt,
    updatedAt: provider.updatedAt,
  };
}
