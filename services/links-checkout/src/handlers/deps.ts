import type { Logger, ServiceClient } from '@mmp/platform';
import { appError, type Actor, type MerchantActor } from '@mmp/protocol';
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

export function requireMerchant(actor: Actor): MerchantActor {
  if (actor.kind !== 'merchant') throw appError('insufficient_permissions', 'This operation needs a merchant API key.');
  return actor;
}

export function requireService(actor: Actor): void {
  if (actor.kind !== 'service') throw appError('insufficient_permissions', 'This operation is internal to the system.');
}

export function headerOf(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}
