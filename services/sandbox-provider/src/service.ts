import { BaseEnv, createSecretBox, operation, type ServiceDefinition } from '@mmp/platform';
import { PULL_MAX_WAIT_MS, sandboxOperations, type SandboxStatus } from '@mmp/protocol';
import { createPullClient } from '@mmp/provider-kit';
import { z } from 'zod';
import { registerWithRetry, type Credentials } from './use-cases/registration.js';
import { workOnce, type WorkerDeps } from './use-cases/worker.js';
import { openSandboxStore } from './store/sandbox.js';

export const Env = BaseEnv.extend({
  /** The gateway's public API, e.g. http://127.0.0.1:3000/v1 (/v1 is added when missing). */
  GATEWAY_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
    .default('http://127.0.0.1:3000/v1'),
  /** The gateway's admin token, to register the sandbox provider at first start. */
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters'),
  /** Seals the sandbox's own API key and signing secret in its store. */
  SERVICE_SECRET_KEY: z.string().min(32, 'must be at least 32 characters'),
  /**
   * How long one round's fetch waits for an order (a long poll; the next round starts when
   * it answers), and the longest pause after rounds that failed.
   */
  SANDBOX_POLL_MS: z.coerce.number().int().positive().default(1_000),
  /** How long "any other number" takes to succeed. */
  SANDBOX_DELAY_MS: z.coerce.number().int().nonnegative().default(3_000),
  /**
   * How long the listed numbers take to settle: long enough for the hosted page to show
   * the payment PROCESSING; a benchmark sets 0 to time the system alone.
   */
  SANDBOX_LISTED_DELAY_MS: z.coerce.number().int().nonnegative().default(200),
});
export type Env = typeof Env;

/** The pause after a failed round; each further failed round in a row doubles it. */
const RETRY_FIRST_MS = 100;

/**
 * The sandbox provider: a provider adapter like any other, outside the core. It knows the
 * system only through the gateway's public API and @mmp/provider-kit: it registers itself,
 * pulls its orders, acks them and pushes signed SettlementEvents for simulated wallets.
 */
export const sandboxProviderService: ServiceDefinition<Env> = {
  name: 'sandbox-provider',
  env: Env,
  async setup(kit) {
    const { env, log } = kit;
    const store = await openSandboxStore(kit.store);
    // The kit's calls take the gateway's URL with or without /v1.
    const baseUrl = env.GATEWAY_URL;
    let credentials: Credentials | null = null;
    let worker: WorkerDeps | null = null;
    // Each round's fetch waits for an order up to SANDBOX_POLL_MS (a long poll), never past
    // the next settlement the round before found, so the next round starts at once. After a
    // round where something failed (the fetch, an ack, a push), the next waits, twice as long
    // after each failed round in a row, from RETRY_FIRST_MS up to SANDBOX_POLL_MS: one lost
    // call holds the orders behind it briefly, and a failing service is not asked again and again.
    let nextSettlementAt: Date | null | undefined;
    const work = kit.loop({
      name: 'sandbox_worker',
      intervalMs: env.SANDBOX_POLL_MS,
      retryFirstMs: RETRY_FIRST_MS,
      pass: async () => {
        if (!worker) return;
        const round = await workOnce(worker, {
          waitMs: Math.min(env.SANDBOX_POLL_MS, PULL_MAX_WAIT_MS),
          nextSettlementAt,
        });
        nextSettlementAt = round.nextSettlementAt;
        if (round.failures > 0)
          throw new Error(`${round.failures} calls of the round failed; they are tried again`);
        work.kick();
      },
    });
    const registration = {
      store,
      box: createSecretBox(env.SERVICE_SECRET_KEY),
      baseUrl,
      adminToken: env.ADMIN_TOKEN,
      log,
    };
    // One pass retries until registered (or the service stops); later passes have nothing to do.
    kit.loop({
      name: 'sandbox_registration',
      intervalMs: 60_000,
      pass: async (signal) => {
        if (credentials) return;
        const registered = await registerWithRetry(registration, signal);
        if (!registered) return;
        credentials = registered;
        worker = {
          executions: store.executions,
          pull: createPullClient({ baseUrl, apiKey: registered.apiKey }),
          credentials: registered,
          baseUrl,
          delays: { listedMs: env.SANDBOX_LISTED_DELAY_MS, otherMs: env.SANDBOX_DELAY_MS },
          log,
        };
        work.kick();
      },
    });
    kit.readiness('registered', async () => credentials !== null);
    // Where the sandbox stands, for operators and end-to-end tests; never its secrets.
    kit.serve(
      operation(sandboxOperations.status, async (): Promise<SandboxStatus> =>
        credentials
          ? { registered: true, providerId: credentials.providerId, railId: credentials.railId }
          : { registered: false },
      ),
    );
  },
};
