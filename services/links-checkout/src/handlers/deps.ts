import type { Logger, ServiceClient } from '@mmp/platform';
import type { Collections } from '../store/collections.js';
import type { MerchantDirectory } from './merchants.js';

export type Settings = {
  publicUrl: string;
  sessionTtlSeconds: number;
};

/** What every handler receives: explicit dependencies, no globals. */
export type Deps = {
  db: Collections;
  services: ServiceClient;
  merchants: MerchantDirectory;
  log: Logger;
  settings: Settings;
  now: () => Date;
};

export function headerOf(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}
