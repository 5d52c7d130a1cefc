import { z } from 'zod';

export const NETWORKS = ['ORANGE_MONEY', 'MTN_MOMO', 'WAVE', 'MOOV_MONEY'] as const;
export const Network = z.enum(NETWORKS, { error: `network must be one of ${NETWORKS.join(', ')}` });
export type Network = z.infer<typeof Network>;

/** Countries the service routes for, ISO 3166-1 alpha-2. */
export const SUPPORTED_COUNTRIES = ['CM', 'CI', 'SN'] as const;
export type SupportedCountry = (typeof SUPPORTED_COUNTRIES)[number];
