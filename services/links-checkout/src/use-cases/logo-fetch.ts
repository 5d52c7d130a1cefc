import type { OutboundHttp } from '@mmp/platform';
import { LOGO_TYPES, MAX_LOGO_BYTES, judgeLogo, type LogoType } from '../domain/logo.js';

export type FetchedLogo = { ok: true; contentType: LogoType; bytes: Buffer } | { ok: false; reason: string };

/**
 * Fetches a merchant's logo on the payer's behalf, so the payer's browser never talks to a
 * third party, through the platform's outbound client: https to public addresses only
 * (judged when it connects), no redirects, within `timeoutMs`; then one image of a raster
 * type within `MAX_LOGO_BYTES`.
 */
export async function fetchLogo(http: OutboundHttp, url: string, timeoutMs: number): Promise<FetchedLogo> {
  const exchange = await http.send({
    url,
    method: 'GET',
    headers: { accept: LOGO_TYPES.join(', '), 'user-agent': 'mmp-links-checkout/1 (merchant logo)' },
    timeoutMs,
    maxBodyBytes: MAX_LOGO_BYTES,
  });
  if (exchange.kind === 'timeout') return { ok: false, reason: 'timeout' };
  if (exchange.kind === 'failed') return { ok: false, reason: exchange.reason };
  if (exchange.status !== 200) return { ok: false, reason: `HTTP ${exchange.status}` };
  if (exchange.truncated) return { ok: false, reason: `larger than ${MAX_LOGO_BYTES} bytes` };
  const declared = exchange.headers['content-type'];
  const judged = judgeLogo(Array.isArray(declared) ? declared[0] : declared, exchange.body);
  return judged.ok ? { ok: true, contentType: judged.contentType, bytes: exchange.body } : judged;
}
