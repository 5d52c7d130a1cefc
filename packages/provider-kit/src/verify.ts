import { DEFAULT_SIGNATURE_TOLERANCE_SECONDS, verifySignatureHeader } from '@mmp/protocol';

export type IncomingHeaders = Record<string, string | string[] | undefined>;

export type VerifyResult = { ok: true } | { ok: false; reason: 'malformed' | 'stale' | 'mismatch' };

function header(headers: IncomingHeaders, name: string): string | undefined {
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies `X-Service-Signature` (`t=<ts>,v1=<hex>`, HMAC-SHA256 over `<ts>.<raw_body>`
 * with the rail's `whsec_` secret) over the bytes exactly as received, before any parsing:
 * re-serialised JSON would not be the bytes that were signed. Answer 401 when not ok.
 */
export function verifyServiceCall(input: {
  rawBody: string | Buffer;
  headers: IncomingHeaders;
  secret: string;
  toleranceSeconds?: number;
  nowSeconds?: number;
}): VerifyResult {
  return verifySignatureHeader({
    header: header(input.headers, 'x-service-signature'),
    rawBody: input.rawBody,
    secrets: [input.secret],
    toleranceSeconds: input.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
    nowSeconds: input.nowSeconds ?? Math.floor(Date.now() / 1000),
  });
}
