import { z } from 'zod';

/**
 * The one development switch for plain `http://` provider endpoints, read by every service
 * that judges or calls one (provider-router's rail test, provider-delivery's probes and
 * deliveries), so a developer sets one variable and both agree.
 */
export const ProviderEndpointEnv = z.object({
  /** Development only: rail endpoints may be `http://` on a loopback host. */
  ALLOW_HTTP_LOOPBACK_ENDPOINTS: z.stringbool().default(false),
});
export type ProviderEndpointEnv = z.infer<typeof ProviderEndpointEnv>;

/** Loopback as the URL parser spells it: `localhost`, 127.0.0.0/8, or `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Why a provider endpoint may not be called, or null when it may: `https://` always;
 * `http://` only on a loopback host and only when `allowHttpLoopback` (the flag above).
 */
export function providerEndpointRefusal(endpoint: string, allowHttpLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'the endpoint is not a valid URL';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && allowHttpLoopback && isLoopbackHost(url.hostname)) return null;
  return `the endpoint must use https:// (got ${url.protocol}//${url.host})`;
}
