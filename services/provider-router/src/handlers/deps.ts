import { appError, type Actor } from '@mmp/protocol';
import type { Logger, Outbox, SecretBox, ServiceClient } from '@mmp/platform';
import type { BreakerConfig } from '../domain/breaker.js';
import type { RouterDb } from '../store/db.js';

export type RouterConfig = {
  orderTtlSeconds: number;
  allowHttpLoopback: boolean;
  breaker: BreakerConfig;
  probeTimeoutMs: number;
};

/** What every handler of provider-router receives. */
export type RouterDeps = {
  db: RouterDb;
  outbox: Outbox;
  box: SecretBox;
  services: ServiceClient;
  config: RouterConfig;
  log: Logger;
  now: () => number;
};

const forbidden = () =>
  appError('insufficient_permissions', 'This operation is not available to this caller.');

/**
 * The provider an operation acts for: a provider acts for itself only; an admin (the `mmp`
 * command) or another service names the provider in the path.
 */
export function actingProviderId(actor: Actor, params: Record<string, string>): string {
  if (actor.kind === 'provider') return actor.providerId;
  if ((actor.kind === 'admin' || actor.kind === 'service') && params.providerId) return params.providerId;
  throw forbidden();
}

export function notFound(what: string) {
  return appError('resource_not_found', `${what} not found.`);
}

export function isoNow(deps: Pick<RouterDeps, 'now'>): string {
  return new Date(deps.now()).toISOString();
}
