import { z } from 'zod';
import { BaseEnv, startLoop, type ServiceDefinition } from '@mmp/platform';
import { ProviderEndpointEnv, shortCode } from '@mmp/protocol';
import { openCollections } from './store/collections.js';
import type { Deps } from './handlers/deps.js';
import { createMerchantDirectory } from './handlers/merchants.js';
import { linkOperations } from './handlers/links.js';
import { publicLinkOperations } from './handlers/public-links.js';
import { sessionOperations } from './handlers/sessions.js';
import { payOperations } from './handlers/pay.js';
import { pageOperations } from './handlers/pages.js';
import { fetchLogo } from './handlers/logo-fetch.js';
import { createMerchantLogos } from './handlers/logos.js';
import { startPaymentEventsConsumer } from './handlers/payment-events.js';
import { startSweeper } from './handlers/sweep.js';
import { recoverOnce } from './handlers/recovery.js';

// ALLOW_HTTP_LOOPBACK_ENDPOINTS, the provider endpoints' development switch, also lets logos
// on a loopback host be fetched (over http too), so a developer sets one variable.
export const Env = BaseEnv.extend(ProviderEndpointEnv.shape).extend({
  /** Origin of the hosted pages as payers reach them (the gateway), without a trailing slash. */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
    .default('http://127.0.0.1:3000')
    .transform((url) => url.replace(/\/+$/, '')),
  /** Inactivity after which an unpaid checkout session expires. */
  SESSION_TTL_SECONDS: z.coerce.number().int().positive().default(900),
  /** How often links and idle sessions past their date are marked expired. */
  LINK_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /** How often pay attempts whose outcome was lost are checked with payments. */
  PAYMENT_RECOVERY_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * Age at which such an attempt is checked. Well above two request timeouts (create, then
   * initiate), so an attempt still waiting for payments is never taken for a lost one.
   */
  PAYMENT_RECOVERY_AFTER_MS: z.coerce.number().int().positive().default(120_000),
  /** How long a merchant's name and logo are reused before asking the gateway again. */
  MERCHANT_CACHE_MS: z.coerce.number().int().min(0).default(30_000),
  /** How long a merchant logo, fetched once for the pages to inline, is reused. */
  LOGO_CACHE_MS: z.coerce.number().int().positive().default(3_600_000),
  /** Time a merchant's server has to answer for its logo; the page waits for it on a cache miss. */
  LOGO_TIMEOUT_MS: z.coerce.number().int().positive().default(2_000),
});
export type Env = typeof Env;

export const linksCheckoutService: ServiceDefinition<Env> = {
  name: 'links-checkout',
  env: Env,
  async start({ env, log, nc, naming, store, services, metrics }) {
    const db = await openCollections(store);
    const deps: Deps = {
      db,
      services,
      merchants: createMerchantDirectory(services, env.MERCHANT_CACHE_MS),
      log,
      settings: {
        publicUrl: env.PUBLIC_URL,
        sessionTtlSeconds: env.SESSION_TTL_SECONDS,
        recoveryAfterMs: env.PAYMENT_RECOVERY_AFTER_MS,
      },
      now: () => new Date(),
      newShortCode: shortCode,
    };
    const consumer = await startPaymentEventsConsumer(deps, nc, naming);
    const sweeper = startSweeper(deps, env.LINK_SWEEP_INTERVAL_MS, metrics);
    const recovery = startLoop({
      name: 'payment_recovery',
      intervalMs: env.PAYMENT_RECOVERY_INTERVAL_MS,
      log,
      metrics,
      pass: () => recoverOnce(deps),
    });
    const logos = createMerchantLogos({
      collection: db.logos,
      fetch: (url) =>
        fetchLogo(url, { allowLoopback: env.ALLOW_HTTP_LOOPBACK_ENDPOINTS, timeoutMs: env.LOGO_TIMEOUT_MS }),
      log,
      ttlMs: env.LOGO_CACHE_MS,
      now: deps.now,
    });
    return {
      operations: {
        ...linkOperations(deps),
        ...publicLinkOperations(deps),
        ...sessionOperations(deps),
        ...payOperations(deps),
        ...pageOperations(deps, logos),
      },
      async stop() {
        await sweeper.stop();
        await recovery.stop();
        await consumer.stop();
      },
    };
  },
};
