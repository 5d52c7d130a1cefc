import { z } from 'zod';
import { BaseEnv, followProjects, operations, type Resolve, type ServiceDefinition } from '@mmp/platform';
import { PublicUrlEnv, checkoutApi, linksApi, pagesApi, shortCode } from '@mmp/protocol';
import { ensureIndexes, openLinksCheckoutDb } from './store/db.js';
import type { Deps } from './deps.js';
import { fetchLogo } from './use-cases/logo-fetch.js';
import { createMerchantLogos } from './use-cases/logos.js';
import { createSweeper } from './use-cases/sweep.js';
import { linkHandlers } from './handlers/links.js';
import { pageHandlers } from './handlers/pages.js';
import {
  FOLLOWED_EVENTS,
  PAYMENT_EVENTS_CONSUMER,
  createPaymentEventHandler,
} from './handlers/payment-events.js';
import { publicLinkHandlers } from './handlers/public-links.js';
import { sessionHandlers } from './handlers/sessions.js';

// ALLOW_HTTP_LOOPBACK_ENDPOINTS (BaseEnv), the development switch of every service that calls out,
// also lets logos on a loopback host be fetched (over http too), so a developer sets one variable.
export const Env = BaseEnv.extend(PublicUrlEnv.shape).extend({
  /** Inactivity after which an unpaid checkout session expires. */
  SESSION_TTL_SECONDS: z.coerce.number().int().positive().default(900),
  /** How often links and idle sessions past their date are marked expired. */
  LINK_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /** How long a merchant logo, fetched once for the pages to inline, is reused. */
  LOGO_CACHE_MS: z.coerce.number().int().positive().default(3_600_000),
  /** Time a merchant's server has to answer for its logo; the page waits for it on a cache miss. */
  LOGO_TIMEOUT_MS: z.coerce.number().int().positive().default(2_000),
});
export type Env = typeof Env;

/** What a test may replace; the running service takes the defaults. */
export type LinksCheckoutOptions = {
  /** How logo hosts resolve; a test's own, never the outside DNS. */
  resolve?: Resolve;
};

export function createLinksCheckoutService(options: LinksCheckoutOptions = {}): ServiceDefinition<Env> {
  return {
    name: 'links-checkout',
    env: Env,
    async setup(kit) {
      const { env } = kit;
      const db = openLinksCheckoutDb(kit.store);
      await ensureIndexes(db);
      const deps: Deps = {
        db,
        bus: kit.bus,
        projects: followProjects(kit, 'links-checkout-projects'),
        log: kit.log,
        settings: {
          publicUrl: env.PUBLIC_URL,
          sessionTtlSeconds: env.SESSION_TTL_SECONDS,
          // Two calls to payments (create, initiate) at most, and a margin for the store.
          attemptMs: 2 * env.REQUEST_TIMEOUT_MS + 1_000,
        },
        now: () => new Date(),
        newShortCode: shortCode,
      };
      const http = kit.outboundHttp({ resolve: options.resolve });
      const logos = createMerchantLogos({
        db,
        fetch: (url) => fetchLogo(http, url, env.LOGO_TIMEOUT_MS),
        log: kit.log,
        ttlMs: env.LOGO_CACHE_MS,
        now: deps.now,
      });

      kit.loop({ name: 'link_sweep', intervalMs: env.LINK_SWEEP_INTERVAL_MS, pass: createSweeper(deps) });
      // Not deduplicated: every write of the handler is guarded, so a replayed event changes
      // nothing (tested), and remembering each event id cost a read, a write and a commit
      // per event (about a fifth of what opening a session cost).
      kit.consume({
        durable: PAYMENT_EVENTS_CONSUMER,
        events: FOLLOWED_EVENTS,
        handle: createPaymentEventHandler(deps),
        // A session moves by compare-and-set from the states an event may find it in.
        anyOrder: true,
      });

      const links = linkHandlers(deps);
      const publicLinks = publicLinkHandlers(deps);
      const sessions = sessionHandlers(deps);
      const pages = pageHandlers(deps, logos);
      kit.serve(
        ...operations(linksApi, links),
        ...operations(linksApi, publicLinks),
        ...operations(checkoutApi, sessions),
        ...operations(pagesApi, pages),
      );
    },
  };
}

export const linksCheckoutService = createLinksCheckoutService();
