import { z } from 'zod';
import { BaseEnv, type ServiceDefinition } from '@mmp/platform';
import { openCollections } from './store/collections.js';
import type { Deps } from './handlers/deps.js';
import { createMerchantDirectory } from './handlers/merchants.js';
import { linkOperations } from './handlers/links.js';
import { publicLinkOperations } from './handlers/public-links.js';
import { sessionOperations } from './handlers/sessions.js';
import { payOperations } from './handlers/pay.js';
import { pageOperations } from './handlers/pages.js';
import { startPaymentEventsConsumer } from './handlers/payment-events.js';
import { startSweeper } from './handlers/sweep.js';

export const Env = BaseEnv.extend({
  /** Origin of the hosted pages as payers reach them (the gateway), without a trailing slash. */
  PUBLIC_URL: z
    .string()
    .url()
    .default('http://127.0.0.1:3000')
    .transform((url) => url.replace(/\/+$/, '')),
  /** Inactivity after which an unpaid checkout session expires. */
  SESSION_TTL_SECONDS: z.coerce.number().int().positive().default(900),
  /** How often links and idle sessions past their date are marked expired. */
  LINK_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /** How long a merchant's name and logo are reused before asking the gateway again. */
  MERCHANT_CACHE_MS: z.coerce.number().int().min(0).default(30_000),
});
export type Env = typeof Env;

export const linksCheckoutService: ServiceDefinition<Env> = {
  name: 'links-checkout',
  env: Env,
  async start({ env, log, nc, naming, store, services }) {
    const db = await openCollections(store);
    const deps: Deps = {
      db,
      services,
      merchants: createMerchantDirectory(services, env.MERCHANT_CACHE_MS),
      log,
      settings: { publicUrl: env.PUBLIC_URL, sessionTtlSeconds: env.SESSION_TTL_SECONDS },
      now: () => new Date(),
    };
    const consumer = await startPaymentEventsConsumer(deps, nc, naming);
    const sweeper = startSweeper(deps, env.LINK_SWEEP_INTERVAL_MS);
    return {
      operations: {
        ...linkOperations(deps),
        ...publicLinkOperations(deps),
        ...sessionOperations(deps),
        ...payOperations(deps),
        ...pageOperations(deps),
      },
      async stop() {
        await sweeper.stop();
        await consumer.stop();
      },
    };
  },
};
