import type { Logger, ServiceClient } from '@mmp/platform';
import type { Collections } from '../store/collections.js';
import type { MerchantDirectory } from './merchants.js';

export type Settings = {
  publicUrl: string;
  sessionTtlSeconds: number;
  /** Age at which a pay attempt whose outcome is still unknown is checked with payments. */
  recoveryAfterMs: number;
};

/** What every handler receives: explicit dependencies, no globals. */
export type Deps = {
  db: Collections;
  services: ServiceClient;
  merchants: MerchantDirectory;
  log: Logger;
  settings: Settings;
  now: () => Date;
  /** Draws a link's short code; a test gives its own to force a collision. */
  newShortCode: () => string;
};

export function headerOf(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}
