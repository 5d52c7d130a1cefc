import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, createOutboundHttp, openEmbeddedStore, type Store } from '@mmp/platform';
import { MAX_LOGO_BYTES } from '../src/domain/logo.js';
import { ensureIndexes, openLinksCheckoutDb, type LinksCheckoutDb } from '../src/store/db.js';
import { fetchLogo } from '../src/use-cases/logo-fetch.js';
import { createMerchantLogos } from '../src/use-cases/logos.js';
import { merchant, PROJECT, useHarness } from './harness.js';

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** The merchant's server: a logo, and every way a logo URL can be wrong. Counts requests per path. */
const hits: Record<string, number> = {};
const server: Server = createServer((request, response) => {
  const path = request.url ?? '/';
  hits[path] = (hits[path] ?? 0) + 1;
  const send = (type: string, body: Buffer | string) => {
    response.writeHead(200, { 'content-type': type });
    response.end(body);
  };
  if (path.startsWith('/logo.png')) return send('image/png', PNG);
  if (path === '/logo.svg') return send('image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>');
  if (path === '/big.png') return send('image/png', Buffer.concat([PNG, Buffer.alloc(MAX_LOGO_BYTES)]));
  if (path === '/page.png') return send('image/png', '<!doctype html><script>alert(1)</script>');
  if (path === '/moved.png') {
    response.writeHead(302, { location: '/logo.png' });
    return response.end();
  }
  if (path === '/slow.png') return; // never answers
  response.writeHead(404).end();
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
// Development (loopback allowed, the switch on) and any other deployment.
const dev = createOutboundHttp({ allowLoopback: true });
const prod = createOutboundHttp({ allowLoopback: false });
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await Promise.all([dev.close(), prod.close()]);
});
const fetchFrom = (http: typeof dev, url: string) => fetchLogo(http, url, 1000);

describe('fetching a merchant logo', () => {
  it('takes a small PNG, JPEG, WebP or GIF answered directly', async () => {
    const logo = await fetchFrom(dev, `${base}/logo.png`);
    expect(logo).toEqual({ ok: true, contentType: 'image/png', bytes: PNG });
  });

  it('refuses SVG, oversized, mislabelled, redirected, missing and slow logos', async () => {
    const reason = async (path: string) => {
      const logo = await fetchFrom(dev, `${base}${path}`);
      return logo.ok ? 'taken' : logo.reason;
    };
    expect(await reason('/logo.svg')).toMatch(/not PNG/);
    expect(await reason('/big.png')).toMatch(/larger than/);
    expect(await reason('/page.png')).toBe('the bytes are not image/png');
    expect(await reason('/moved.png')).toBe('HTTP 302');
    expect(await reason('/gone.png')).toBe('HTTP 404');
    const started = Date.now();
    expect(await reason('/slow.png')).not.toBe('taken');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('outside development, asks only https hosts on public addresses', async () => {
    const before = hits['/logo.png'] ?? 0;
    expect(await fetchFrom(prod, `${base}/logo.png`)).toEqual({ ok: false, reason: 'not https' });
    for (const url of [
      'https://127.0.0.1/logo.png',
      'https://10.1.2.3/logo.png',
      'https://[::1]/logo.png',
      'https://169.254.169.254/latest/meta-data',
      'https://localhost/logo.png',
    ])
      expect(await fetchFrom(prod, url), url).toEqual({ ok: false, reason: 'private address' });
    expect(await fetchFrom(prod, 'https://user:pw@cdn.example.com/l.png')).toMatchObject({ ok: false });
    expect(await fetchFrom(prod, 'not a url')).toEqual({ ok: false, reason: 'not a URL' });
    expect(hits['/logo.png'] ?? 0).toBe(before);
  });
});

describe('a logo host named, not written as an address', () => {
  it('is refused when it resolves to a private address, as the connection is made', async () => {
    const internal = createOutboundHttp({
      allowLoopback: true,
      resolve: async () => [{ address: '10.0.0.7', family: 4 }],
    });
    try {
      expect(await fetchFrom(internal, 'https://cdn.internal.test/logo.png')).toEqual({
        ok: false,
        reason: 'private address',
      });
    } finally {
      await internal.close();
    }
  });
});

describe('the logo cache', () => {
  let dir: string;
  let store: Store;
  let db: LinksCheckoutDb;
  // Real time: the store's own TTL index removes documents whose date has passed.
  let clock = Date.now();
  const now = () => new Date(clock);
  const log = createLogger({ service: 'test', level: 'silent' });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mmp-logos-'));
    store = await openEmbeddedStore({ dir });
    db = openLinksCheckoutDb(store);
    await ensureIndexes(db);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const logos = () =>
    createMerchantLogos({
      db,
      fetch: (url) => fetchFrom(dev, url),
      log,
      ttlMs: 3_600_000,
      now,
    });

  it('fetches once per project and TTL, shares concurrent fetches, and survives a restart', async () => {
    const url = `${base}/logo.png?cache`;
    const expected = `data:image/png;base64,${PNG.toString('base64')}`;
    const first = logos();
    expect(await Promise.all([1, 2, 3].map(() => first.dataUrl('p1', url)))).toEqual([
      expected,
      expected,
      expected,
    ]);
    expect(await logos().dataUrl('p1', url)).toBe(expected);
    expect(hits['/logo.png?cache']).toBe(1);
    clock += 3_600_001;
    expect(await logos().dataUrl('p1', url)).toBe(expected);
    expect(hits['/logo.png?cache']).toBe(2);
  });

  it('fetches again when the merchant changes the URL, and tries a broken one again a minute later', async () => {
    const cache = logos();
    expect(await cache.dataUrl('p2', `${base}/logo.svg`)).toBeNull();
    expect(await cache.dataUrl('p2', `${base}/logo.svg`)).toBeNull();
    expect(hits['/logo.svg']).toBe(2); // one from the fetch test above
    clock += 60_001;
    expect(await cache.dataUrl('p2', `${base}/logo.svg`)).toBeNull();
    expect(hits['/logo.svg']).toBe(3);
    expect(await cache.dataUrl('p2', `${base}/logo.png?changed`)).toMatch(/^data:image\/png;base64,/);
    expect(await cache.dataUrl('p2', null)).toBeNull();
  });
});

describe('pages with a logo', () => {
  beforeAll(() => {
    PROJECT.logoUrl = `${base}/logo.png?page`;
  });
  const h = useHarness({ ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true' });

  it('inline the logo the service fetched, so the browser asks nobody else', async () => {
    const session = await h.ok<{ id: string }>(
      'sessions.create',
      { body: { amount: 5000 } },
      merchant(),
      201,
    );
    const reply = await h.call('pages.checkout', { params: { sessionId: session.id } });
    expect(reply.body).toContain(`src="data:image/png;base64,${PNG.toString('base64')}"`);
    expect(reply.body).not.toContain(base);
    expect(reply.headers?.['content-security-policy']).toContain('img-src data:;');
  });
});
