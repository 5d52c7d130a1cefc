import { BaseEnv, createSecretBox, startLoop, type ServiceDefinition } from '@mmp/platform';
import { createPullClient } from '@mmp/provider-kit';
import { z } from 'zod';
import { registerWithRetry, type Credentials } from './handlers/registration.js';
import { workOnce } from './handlers/worker.js';
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
  /** Pause between two rounds of fetching orders and pushing due settlements. */
  SANDBOX_POLL_MS: z.coerce.number().int().positive().default(1_000),
  /** How long "any other number" takes to succeed. */
  SANDBOX_DELAY_MS: z.coerce.number().int().nonnegative().default(3_000),
});
export type Env = typeof Env;

/**
 * The sandbox provider: a provider adapter like any other, outside the core. It knows the
 * system only through the gateway's public API and @mmp/provider-kit: it registers itself,
 * pulls its orders, acks them and pushes signed SettlementEvents for simulated wallets.
 */
export const sandboxProviderService: ServiceDefinition<Env> = {
  name: 'sandbox-provider',
  env: Env,
  async start({ env, log, store, metrics }) {
    const sandboxStore = await openSandboxStore(store);
    // The kit's calls take the gateway's URL with or without /v1.
    const baseUrl = env.GATEWAY_URL;
    const aborted = new AbortController();
    let credentials: Credentials | null = null;
    let worker: { stop(): Promise<void> } | undefined;
    const registering = registerWithRetry(
      {
        store: sandboxStore,
        box: createSecretBox(env.SERVICE_SECRET_KEY),
        baseUrl,
        adminToken: env.ADMIN_TOKEN,
        log,
      },
      aborted.signal,
    ).then((registered) => {
      if (!registered || aborted.signal.aborted) return;
      credentials = registered;
      const deps = {
        executions: sandboxStore.executions,
        pull: createPullClient({ baseUrl, apiKey: registered.apiKey }),
        credentials: registered,
        baseUrl,
        delayMs: env.SANDBOX_DELAY_MS,
        log,
      };
      worker = startLoop({
        name: 'sandbox_worker',
        intervalMs: env.SANDBOX_POLL_MS,
        log,
        metrics,
        pass: () => workOnce(deps),
      });
    });
    return {
      operations: {
        // Where the sandbox stands, for operators and end-to-end tests; never its secrets.
        status: async () => ({
          status: 200,
          body: credentials
            ? { registered: true, providerId: credentials.providerId, railId: credentials.railId }
            : { registered: false },
        }),
      },
      readiness: { registered: async () => credentials !== null },
      async stop() {
        aborted.abort();
        await registering;
        await worker?.stop();
      },
    };
  },
};
