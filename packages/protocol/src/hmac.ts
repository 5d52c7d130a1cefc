import { createHmac, timingSafeEqual } from 'node:crypto';

export type RawBody = string | Buffer;

/** Lower-case hex HMAC-SHA256 of the exact bytes (the settlement form of `x-service-signature`). */
export function hexHmac(secret: string, rawBody: RawBody): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

const HEX = /^[0-9a-fA-F]+$/;

/** Compares digests in constant time; anything that is not a full SHA-256 hex digest fails. */
function digestEquals(expectedHex: string, candidateHex: string): boolean {
  if (candidateHex.length !== expectedHex.length || !HEX.test(candidateHex)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(candidateHex, 'hex'));
}

/** Whether `candidate` has the shape of a hex SHA-256 digest (64 hex digits), whatever its value. */
export function isHexSha256(candidate: string): boolean {
  return candidate.length === 64 && HEX.test(candidate);
}

export function verifyHexHmac(secret: string, rawBody: RawBody, hex: string): boolean {
  return digestEquals(hexHmac(secret, rawBody), hex.trim());
}

function signedContent(timestampSeconds: number, rawBody: RawBody): Buffer {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  return Buffer.concat([Buffer.from(`${timestampSeconds}.`, 'utf8'), body]);
}

/** `t=<ts>,v1=<hex>`, HMAC-SHA256 over `<ts>.<raw_body>` (merchant webhooks and provider orders). */
export function signPayload(secret: string, rawBody: RawBody, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${hexHmac(secret, signedContent(timestampSeconds, rawBody))}`;
}

export interface ParsedSignatureHeader {
  timestamp: number;
  signatures: string[];
}

/**
 * Parses `t=<ts>,v1=<hex>[,v1=<hex>…]`. Several v1 values appear while a secret rotates;
 * other schemes (v0, …) are ignored so that adding one later breaks no verifier.
 */
export function parseSignatureHeader(header: string): ParsedSignatureHeader | null {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      signatures.push(value);
    }
  }
  if (timestamp === undefined || signatures.length === 0) return null;
  return { timestamp, signatures };
}

export type SignatureVerdict = { ok: true } | { ok: false; reason: 'malformed' | 'stale' | 'mismatch' };

export interface VerifySignatureInput {
  header: string | undefined | null;
  rawBody: RawBody;
  /** Several during a rotation: the new secret and the one it replaces. */
  secrets: readonly string[];
  toleranceSeconds?: number;
  nowSeconds: number;
}

export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

export function verifySignatureHeader(input: VerifySignatureInput): SignatureVerdict {
  const parsed = input.header ? parseSignatureHeader(input.header) : null;
  if (!parsed) return { ok: false, reason: 'malformed' };
  const tolerance = input.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  // Both directions: a timestamp far in the future is as replayable as an old one.
  if (Math.abs(input.nowSeconds - parsed.timestamp) > tolerance) return { ok: false, reason: 'stale' };
  const content = signedContent(parsed.timestamp, input.rawBody);
  for (const secret of input.secrets) {
    const expected = hexHmac(secret, content);
    if (parsed.signatures.some((candidate) => digestEquals(expected, candidate))) return { ok: true };
  }
  return { ok: false, reason: 'mismatch' };
}
