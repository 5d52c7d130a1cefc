import type {
  BusClient,
  Logger,
  MetricsRegistry,
  OutboundHttp,
  Outbox,
  ProjectDirectory,
  SecretBox,
} from '@mmp/platform';
import type { PaymentsDb } from './store/db.js';
import type { Idempotency } from './store/idempotency.js';

/** Settings the use-cases read, taken from the service's Env at start. */
export type PaymentsSettings = {
  paymentTtlSeconds: number;
  /** Origin of the hosted pages: a merchant payment's paymentUrl is its session's page there. */
  publicUrl: string;
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  /** Development only: webhook endpoints may be on loopback (http too), never private. */
  allowLoopback: boolean;
};

/** What every use-case and handler receives: explicit dependencies, no globals. */
export type Deps = {
  db: PaymentsDb;
  outbox: Outbox;
  bus: BusClient;
  idempotency: Idempotency;
  box: SecretBox;
  http: OutboundHttp;
  projects: ProjectDirectory;
  log: Logger;
  settings: PaymentsSettings;
  now: () => Date;
  metrics: MetricsRegistry;
};
