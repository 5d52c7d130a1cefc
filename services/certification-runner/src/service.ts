import { z } from 'zod';
import { certificationApi } from '@mmp/protocol';
import { BaseEnv, operations, type ServiceDefinition } from '@mmp/platform';
import { portalHandlers } from './handlers/portal.js';
import { startFaultRelay } from './relay/fault-relay.js';
import { openRunsStore } from './store/runs.js';
import type { RunnerDeps } from './use-cases/deps.js';
import { endStaleRuns } from './use-cases/stale-runs.js';

export const Env = BaseEnv.extend({
  /** The system's public API, e.g. http://127.0.0.1:3000/v1 (/v1 is added when missing). */
  GATEWAY_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
    .default('http://127.0.0.1:3000/v1'),
  /** Where the fault relay (cases 9 to 11) listens; 0 picks a free port. */
  CERTIFICATION_RELAY_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  CERTIFICATION_RELAY_HOST: z.string().default('127.0.0.1'),
  /**
   * The address provider-delivery reaches the relay at. In production a public https://
   * address routed to the relay (delivery calls only those); by default http on the relay's
   * loopback port, which delivery calls only with ALLOW_HTTP_LOOPBACK_ENDPOINTS.
   */
  CERTIFICATION_RELAY_URL: z.url({ protocol: /^https?$/ }).optional(),
  CERTIFICATION_CALL_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  CERTIFICATION_SETTLEMENT_WAIT_MS: z.coerce.number().int().positive().default(20_000),
  /** Longer than delivery's attempts and timeouts together (DELIVERY_TIMEOUT_MS × attempts + backoff). */
  CERTIFICATION_DELIVERY_WAIT_MS: z.coerce.number().int().positive().default(50_000),
  CERTIFICATION_DUPLICATE_GRACE_MS: z.coerce.number().int().nonnegative().default(2_000),
  CERTIFICATION_POLL_MS: z.coerce.number().int().positive().default(200),
  /** A run still RUNNING after this long lost its process: it is ended FAILED, its badge untouched. */
  CERTIFICATION_STALE_RUN_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
});
export type Env = typeof Env;

/** The API base ending in /v1, whether or not GATEWAY_URL has it. */
function apiBase(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}

/**
 * certification-runner: certification runs of providers' sandbox rails and their case
 * results; a full passing run certifies the rail's channel (provider-router follows the
 * badge events). Orders travel by the real transport, settlements by the real ingestion route.
 */
export const certificationRunnerService: ServiceDefinition<Env> = {
  name: 'certification-runner',
  env: Env,
  async setup(kit) {
    const { env } = kit;
    const db = await openRunsStore(kit.store);
    const http = kit.outboundHttp();
    const relay = await startFaultRelay({
      routes: db.relayRoutes,
      http,
      port: env.CERTIFICATION_RELAY_PORT,
      host: env.CERTIFICATION_RELAY_HOST,
      publicUrl: env.CERTIFICATION_RELAY_URL,
      timeoutMs: env.CERTIFICATION_CALL_TIMEOUT_MS,
    });
    kit.onStop(() => relay.stop());
    const deps: RunnerDeps = {
      db,
      outbox: kit.outbox([db.runs, db.cases]),
      bus: kit.bus,
      http,
      relay,
      log: kit.log,
      config: {
        apiBase: apiBase(env.GATEWAY_URL),
        callTimeoutMs: env.CERTIFICATION_CALL_TIMEOUT_MS,
        settlementWaitMs: env.CERTIFICATION_SETTLEMENT_WAIT_MS,
        deliveryWaitMs: env.CERTIFICATION_DELIVERY_WAIT_MS,
        duplicateGraceMs: env.CERTIFICATION_DUPLICATE_GRACE_MS,
        pollMs: env.CERTIFICATION_POLL_MS,
      },
    };
    kit.loop({
      name: 'stale_certification_runs',
      intervalMs: 60_000,
      pass: async () => {
        const count = await endStaleRuns(deps, env.CERTIFICATION_STALE_RUN_MS);
        if (count > 0) kit.log.warn({ count }, 'certification runs ended as interrupted');
      },
    });
    kit.serve(...operations(certificationApi, portalHandlers(deps)));
  },
};
