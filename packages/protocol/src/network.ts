import type { z } from 'zod';
import { oneOf } from './one-of.js';

export const NETWORKS = ['ORANGE_MONEY', 'MTN_MOMO', 'WAVE', 'MOOV_MONEY'] as const;
export const Network = oneOf(NETWORKS, 'network');
export type Network = z.infer<typeof Network>;

/** Countries the service routes for, ISO 3166-1 alpha-2. */
export const SUPPORTED_COUNTRIES = ['CM', 'CI', 'SN'] as const;
export type SupportedCountry = (typeof SUPPORTED_COUNTRIES)[number];
