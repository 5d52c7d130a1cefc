import { describe, expect, it } from 'vitest';
import {
  hexHmac,
  isHexSha256,
  parseSignatureHeader,
  signPayload,
  verifyHexHmac,
  verifySignatureHeader,
} from './hmac.js';

// Vectors computed independently with:
//   printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$SECRET"
//   printf '%s' "1700000000.$BODY" | openssl dgst -sha256 -hmac "$SECRET"
const SECRET = 'whsec_test0123456789abcdefABCDEF0123';
const OTHER = 'whsec_other';
const BODY = '{"protocol_version":"1","idempotency_key":"pexec_abc","amount":"5000"}';
const TS = 1_700_000_000;
const BODY_HEX = 'd2d1d95b0de76630f16f883307681a8ae6367650830cada09862a117e7258a9b';
const BODY_HEX_OTHER = '000b627eb66656927f52e45abcf1fc6b80824531f6456701df230541ec728281';
const SIGNED_HEX = '02b30137643eb585ddddf75db313679fe913f3b0e36022528c151db4dcfe001c';
const SIGNED_HEX_OTHER = '5c44e8956abd8de0ed1e5ebfcd6479493edd9ec376521d9a335d873d713b03a0';
const UTF8_HEX = '8d23114ccd582766ef1cfa710060a0c4f5cd57425a7f45f70eb87157c960fe9c';

describe('hexHmac / verifyHexHmac (settlement form)', () => {
  it('matches openssl on the exact body', () => {
    expect(hexHmac(SECRET, BODY)).toBe(BODY_HEX);
    expect(hexHmac(OTHER, BODY)).toBe(BODY_HEX_OTHER);
    expect(hexHmac(SECRET, 'héllo wörld')).toBe(UTF8_HEX);
    expect(hexHmac(SECRET, Buffer.from(BODY))).toBe(BODY_HEX);
  });

  it('verifies a matching digest, upper-case hex too', () => {
    expect(verifyHexHmac(SECRET, BODY, BODY_HEX)).toBe(true);
    expect(verifyHexHmac(SECRET, BODY, BODY_HEX.toUpperCase())).toBe(true);
  });

  it('rejects a wrong secret, a tampered body, and malformed digests without throwing', () => {
    expect(verifyHexHmac(SECRET, BODY, BODY_HEX_OTHER)).toBe(false);
    expect(verifyHexHmac(SECRET, BODY.replace('5000', '5001'), BODY_HEX)).toBe(false);
    expect(verifyHexHmac(SECRET, `${BODY} `, BODY_HEX)).toBe(false);
    expect(verifyHexHmac(SECRET, BODY, BODY_HEX.slice(0, 63))).toBe(false); // odd length
    expect(verifyHexHmac(SECRET, BODY, BODY_HEX.slice(0, 62))).toBe(false); // truncated
    expect(verifyHexHmac(SECRET, BODY, `${BODY_HEX.slice(0, 63)}z`)).toBe(false); // not hex
    expect(verifyHexHmac(SECRET, BODY, '')).toBe(false);
  });
});

describe('isHexSha256', () => {
  it('takes 64 hex digits of either case, and nothing shorter, longer or of another form', () => {
    expect(isHexSha256('ab'.repeat(32))).toBe(true);
    expect(isHexSha256('AB'.repeat(32))).toBe(true);
    for (const candidate of [
      '',
      'ab'.repeat(31),
      'ab'.repeat(33),
      'zz'.repeat(32),
      `t=1,v1=${'ab'.repeat(32)}`,
    ]) {
      expect(isHexSha256(candidate), candidate).toBe(false);
    }
  });
});

describe('signPayload', () => {
  it('signs <ts>.<raw_body> as t=<ts>,v1=<hex>, matching openssl', () => {
    expect(signPayload(SECRET, BODY, TS)).toBe(`t=${TS},v1=${SIGNED_HEX}`);
    expect(signPayload(OTHER, BODY, TS)).toBe(`t=${TS},v1=${SIGNED_HEX_OTHER}`);
  });
});

describe('verifySignatureHeader', () => {
  const base = { rawBody: BODY, secrets: [SECRET], nowSeconds: TS + 10 };

  it('accepts a valid header', () => {
    expect(verifySignatureHeader({ ...base, header: `t=${TS},v1=${SIGNED_HEX}` })).toEqual({ ok: true });
    expect(verifySignatureHeader({ ...base, header: ` t=${TS} , v1=${SIGNED_HEX} ` })).toEqual({ ok: true });
  });

  it('accepts any of several v1 values (secret rotation) and ignores other schemes', () => {
    const header = `t=${TS},v1=${SIGNED_HEX_OTHER},v0=abc,v1=${SIGNED_HEX}`;
    expect(verifySignatureHeader({ ...base, header })).toEqual({ ok: true });
  });

  it('accepts any of several secrets', () => {
    expect(
      verifySignatureHeader({ ...base, secrets: [OTHER, SECRET], header: `t=${TS},v1=${SIGNED_HEX}` }),
    ).toEqual({ ok: true });
    expect(
      verifySignatureHeader({ ...base, secrets: [SECRET], header: `t=${TS},v1=${SIGNED_HEX_OTHER}` }),
    ).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('reports a tampered body or a wrong secret as mismatch', () => {
    expect(
      verifySignatureHeader({
        ...base,
        rawBody: BODY.replace('pexec_abc', 'pexec_abd'),
        header: `t=${TS},v1=${SIGNED_HEX}`,
      }),
    ).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(
      verifySignatureHeader({ ...base, secrets: [OTHER], header: `t=${TS},v1=${SIGNED_HEX}` }),
    ).toMatchObject({ reason: 'mismatch' });
    expect(verifySignatureHeader({ ...base, secrets: [], header: `t=${TS},v1=${SIGNED_HEX}` })).toMatchObject(
      { reason: 'mismatch' },
    );
    // The timestamp is signed: changing it breaks the signature.
    expect(verifySignatureHeader({ ...base, header: `t=${TS + 1},v1=${SIGNED_HEX}` })).toMatchObject({
      reason: 'mismatch',
    });
    expect(verifySignatureHeader({ ...base, header: `t=${TS},v1=${SIGNED_HEX.slice(1)}` })).toMatchObject({
      reason: 'mismatch',
    });
  });

  it('reports stale timestamps in both directions, with a configurable tolerance', () => {
    const header = `t=${TS},v1=${SIGNED_HEX}`;
    expect(verifySignatureHeader({ ...base, header, nowSeconds: TS + 300 })).toEqual({ ok: true });
    expect(verifySignatureHeader({ ...base, header, nowSeconds: TS + 301 })).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifySignatureHeader({ ...base, header, nowSeconds: TS - 301 })).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifySignatureHeader({ ...base, header, nowSeconds: TS + 20, toleranceSeconds: 10 })).toEqual({
      ok: false,
      reason: 'stale',
    });
  });

  it('reports malformed headers', () => {
    for (const header of [
      undefined,
      null,
      '',
      SIGNED_HEX,
      `v1=${SIGNED_HEX}`,
      `t=${TS}`,
      `t=abc,v1=${SIGNED_HEX}`,
      `t=${TS},t=${TS},v1=${SIGNED_HEX}`,
      `t=${TS},,v1=x`,
      `t=-5,v1=${SIGNED_HEX}`,
    ]) {
      expect(verifySignatureHeader({ ...base, header })).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('round-trips with signPayload', () => {
    const header = signPayload(SECRET, 'anything', 42);
    expect(parseSignatureHeader(header)).toEqual({
      timestamp: 42,
      signatures: [expect.stringMatching(/^[0-9a-f]{64}$/)],
    });
    expect(verifySignatureHeader({ header, rawBody: 'anything', secrets: [SECRET], nowSeconds: 42 })).toEqual(
      { ok: true },
    );
  });
});
