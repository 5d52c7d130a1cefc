import type { Logger } from '@mmp/platform';
import { logoDataUrl } from '../domain/logo.js';
import type { LinksCheckoutDb } from '../store/db.js';
import { findLogo, saveLogo, type LogoDoc } from '../store/logos.js';
import type { FetchedLogo } from './logo-fetch.js';

export type MerchantLogos = {
  /** The project's logo as a `data:` URL the page can inline, or null (the page shows the name only). */
  dataUrl(projectId: string, url: string | null): Promise<string | null>;
};

/** A URL that gave no usable image is tried again after this long, so a fixed logo shows soon. */
const RETRY_MISSING_MS = 60_000;

/**
 * Merchant logos fetched by the service and kept in its store for `ttlMs`, so the payer's
 * browser only ever talks to our origin and a merchant's server sees one request per
 * project and TTL, not one per page view. Concurrent views of a project share one fetch.
 */
export function createMerchantLogos(options: {
  db: LinksCheckoutDb;
  fetch: (url: string) => Promise<FetchedLogo>;
  log: Logger;
  ttlMs: number;
  now: () => Date;
}): MerchantLogos {
  const { db, log } = options;
  const inFlight = new Map<string, Promise<LogoDoc>>();

  async function refresh(projectId: string, url: string): Promise<LogoDoc> {
    const fetched = await options.fetch(url);
    if (!fetched.ok)
      // The host only: a logo URL may carry a signed query string.
      log.warn(
        { projectId, host: URL.canParse(url) ? new URL(url).host : null, reason: fetched.reason },
        'merchant logo not usable',
      );
    const expiresAt = new Date(
      options.now().getTime() + (fetched.ok ? options.ttlMs : Math.min(options.ttlMs, RETRY_MISSING_MS)),
    );
    const doc: LogoDoc = {
      _id: projectId,
      url,
      contentType: fetched.ok ? fetched.contentType : null,
      data: fetched.ok ? fetched.bytes.toString('base64') : null,
      expiresAt,
    };
    await saveLogo(db, doc);
    return doc;
  }

  function shared(projectId: string, url: string): Promise<LogoDoc> {
    const running = inFlight.get(projectId);
    if (running) return running;
    const started = refresh(projectId, url).finally(() => inFlight.delete(projectId));
    inFlight.set(projectId, started);
    return started;
  }

  return {
    async dataUrl(projectId, url) {
      if (!url) return null;
      const cached = await findLogo(db, projectId);
      const fresh =
        cached && cached.url === url && cached.expiresAt.getTime() > options.now().getTime()
          ? cached
          : await shared(projectId, url);
      return fresh.data && fresh.contentType ? logoDataUrl(fresh.contentType, fresh.data) : null;
    },
  };
}
