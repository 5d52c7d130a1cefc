import type { Logger, MetricsRegistry, Outbox, SecretBox, ServiceClient } from '@mmp/platform';
import { appError } from '@mmp/protocol';
import type { PaymentsDb } from '../store/db.js';
import type { Idempotency } from '../store/idempotency.js';

/** Settings the handlers read, taken from the service's Env at start. */
export type PaymentsSettings = {
  paymentTtlSeconds: number;
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  webhookAllowPrivateUrls: boolean;
};

/** What every handler receives: explicit dependencies, no globals. */
export type Deps = {
  db: PaymentsDb;
  outbox: Outbox;
  services: ServiceClient;
  idempotency: Idempotency;
  box: SecretBox;
  log: Logger;
  settings: PaymentsSettings;
  now: () => Date;
  metrics: MetricsRegistry;
};

/** The idempotency-key header, whatever case the caller used. */
export function idempotencyKeyOf(headers: Record<string, string>): string | undefined {
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === 'idempotency-key');
  return entry?.[1];
}

/** A query value given once; repeated values are a client error, not a silent pick. */
export function singleQuery(query: Record<string, string | string[]>, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw appError('invalid_request', `Query parameter '${name}' must be given once.`);
    return value[0];
  }
  return value;
}
