import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isLoopbackHost, isPrivateAddress } from '@mmp/platform';
import { Agent, request } from 'undici';
import { LOGO_TYPES, MAX_LOGO_BYTES, judgeLogo, type LogoType } from '../domain/logo.js';

export type FetchedLogo = { ok: true; contentType: LogoType; bytes: Buffer } | { ok: false; reason: string };

export type LogoFetchOptions = {
  /** Development only: a logo on a loopback host may be fetched, over http too. */
  allowLoopback: boolean;
  timeoutMs: number;
};

/** Why the URL may not be fetched at all, or null. */
function urlRefusal(url: URL, allowLoopback: boolean): string | null {
  if (url.username || url.password) return 'credentials in the URL';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = allowLoopback && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return 'not https';
  if (isIP(host) && isPrivateAddress(host) && !loopback) return 'private address';
  return null;
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * DNS answers are judged when the socket connects, not before, so a name that resolves to a
 * public address when checked and to a private one a moment later (rebinding) is still refused.
 */
function publicOnlyLookup(allowLoopback: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const loopback = allowLoopback && isLoopbackHost(hostname);
      if (addresses.length === 0 || (!loopback && addresses.some((a) => isPrivateAddress(a.address))))
        return callback(Object.assign(new Error('private address'), { code: 'EPRIVATE' }), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

async function readCapped(body: AsyncIterable<Buffer>, cap: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Fetches a merchant's logo on the payer's behalf, so the payer's browser never talks to a
 * third party: https only, public addresses only, no redirects, one image of a raster type
 * within `MAX_LOGO_BYTES`, within `timeoutMs` in all.
 */
export async function fetchLogo(raw: string, options: LogoFetchOptions): Promise<FetchedLogo> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  const refused = urlRefusal(url, options.allowLoopback);
  if (refused) return { ok: false, reason: refused };
  const agent = new Agent({
    connect: { lookup: publicOnlyLookup(options.allowLoopback), timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connections: 1,
  });
  try {
    const response = await request(url, {
      dispatcher: agent,
      headers: { accept: LOGO_TYPES.join(', '), 'user-agent': 'mmp-links-checkout/1 (merchant logo)' },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      return { ok: false, reason: `HTTP ${response.statusCode}` };
    }
    const declared = response.headers['content-type'];
    const bytes = await readCapped(response.body, MAX_LOGO_BYTES);
    if (!bytes) return { ok: false, reason: `larger than ${MAX_LOGO_BYTES} bytes` };
    const judged = judgeLogo(Array.isArray(declared) ? declared[0] : declared, bytes);
    return judged.ok ? { ok: true, contentType: judged.contentType, bytes } : judged;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EPRIVATE' || (error as { cause?: { code?: string } }).cause?.code === 'EPRIVATE')
      return { ok: false, reason: 'private address' };
    return { ok: false, reason: error instanceof Error ? `${error.name}: ${error.message}` : 'error' };
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}
