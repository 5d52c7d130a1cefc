import { describe, expect, it, vi } from 'vitest';
import {
  ApiKey,
  BASE62,
  CheckoutSessionId,
  EventId,
  PaymentOrderKey,
  PaymentToken,
  PayoutOrderKey,
  ProviderApiKey,
  RequestId,
  ShortCode,
  Uuid,
  WebhookSecret,
  newApiKey,
  newCheckoutSessionId,
  newEventId,
  newPaymentOrderKey,
  newPaymentToken,
  newPayoutOrderKey,
  newProviderApiKey,
  newRequestId,
  newWebhookSecret,
  parseApiKey,
  randomBase62,
  shortCode,
  timeOrderedBase62,
  uuid,
} from './ids.js';

describe('id generators', () => {
  it('produce ids their schemas accept', () => {
    const pairs = [
      [newPaymentToken, PaymentToken, 'pay_'],
      [newCheckoutSessionId, CheckoutSessionId, 'cs_'],
      [newEventId, EventId, 'evt_'],
      [newPaymentOrderKey, PaymentOrderKey, 'pexec_'],
      [newPayoutOrderKey, PayoutOrderKey, 'pexo_'],
      [newWebhookSecret, WebhookSecret, 'whsec_'],
      [newProviderApiKey, ProviderApiKey, 'sk_'],
      [newRequestId, RequestId, 'req_'],
    ] as const;
    for (const [make, schema, prefix] of pairs) {
      const id = make();
      expect(id.startsWith(prefix)).toBe(true);
      expect(schema.safeParse(id).success).toBe(true);
    }
    expect(ShortCode.safeParse(shortCode()).success).toBe(true);
    expect(Uuid.safeParse(uuid()).success).toBe(true);
  });

  it('secrets carry at least 32 random chars', () => {
    expect(newWebhookSecret().length).toBe('whsec_'.length + 32);
    expect(newApiKey('secret', false)).toMatch(/^svc_test_sk_[A-Za-z0-9]{32}$/);
    expect(newApiKey('publishable', true)).toMatch(/^svc_live_pk_[A-Za-z0-9]{32}$/);
  });

  it('are unique', () => {
    const codes = new Set(Array.from({ length: 20_000 }, () => shortCode()));
    expect(codes.size).toBe(20_000);
    const tokens = new Set(Array.from({ length: 5_000 }, () => newPaymentToken()));
    expect(tokens.size).toBe(5_000);
  });

  it('draw every base62 char with about equal frequency (no modulo bias)', () => {
    const sample = randomBase62(62 * 2_000);
    const counts = new Map<string, number>();
    for (const ch of sample) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    expect([...counts.keys()].every((ch) => BASE62.includes(ch))).toBe(true);
    // Expected 2000 each, sd ≈ 44; a modulo-biased generator puts the first 8 chars near 2060+.
    let chiSquare = 0;
    for (const count of counts.values()) chiSquare += (count - 2_000) ** 2 / 2_000;
    // 61 degrees of freedom: p < 1e-6 above ~120.
    expect(chiSquare).toBeLessThan(120);
  });

  it('randomBase62 honours the length', () => {
    for (const n of [0, 1, 7, 8, 100]) expect(randomBase62(n)).toHaveLength(n);
  });
});

describe('timeOrderedBase62', () => {
  it('sorts as text in the order the ids were made, and stays unique within a millisecond', () => {
    const times = [0, 61, 62, Date.UTC(2026, 10, 29), Date.UTC(2026, 10, 29) + 1, Date.UTC(2099, 0, 1)];
    const ids = times.map((ms) => timeOrderedBase62(24, ms));
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{24}$/);
    const sameMs = Array.from({ length: 1000 }, () => timeOrderedBase62(24, 1_000));
    expect(new Set(sameMs).size).toBe(1000);
    expect(new Set(sameMs.map((id) => id.slice(0, 8))).size).toBe(1);
  });
});

describe('uuid', () => {
  it('is a version 7 UUID that begins with its millisecond', () => {
    const ms = Date.UTC(2030, 0, 1);
    const id = uuid(ms);
    expect(Uuid.safeParse(id).success).toBe(true);
    expect(id[14]).toBe('7');
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
  });

  it('sorts as text in the order the ids were made, within one millisecond and across them', () => {
    const start = Date.UTC(2031, 0, 1);
    const ids = [
      ...Array.from({ length: 1000 }, () => uuid(start)),
      ...Array.from({ length: 1000 }, () => uuid(start + 1)),
    ];
    expect(new Set(ids).size).toBe(2000);
    expect([...ids].sort()).toEqual(ids);
    // A clock that goes back keeps the last millisecond, still in order.
    const after = uuid(start - 5_000);
    expect(after > ids.at(-1)!).toBe(true);
  });

  it('takes its random bytes from the pool, not from the OS for each id', () => {
    const draw = vi.spyOn(globalThis.crypto, 'getRandomValues');
    try {
      for (let i = 0; i < 100; i += 1) uuid();
      expect(draw).not.toHaveBeenCalled();
    } finally {
      draw.mockRestore();
    }
  });
});

describe('id schemas', () => {
  it('refuse wrong prefixes, short bodies and foreign chars', () => {
    expect(PaymentToken.safeParse('pay_short').success).toBe(false);
    expect(PaymentToken.safeParse('cs_AAAAAAAAAAAAAAAAAAAA').success).toBe(false);
    expect(PaymentToken.safeParse('pay_AAAAAAAAAAAAAAA-AAAA').success).toBe(false);
    expect(CheckoutSessionId.safeParse('cs_').success).toBe(false);
    expect(ShortCode.safeParse('abc1234').success).toBe(false);
    expect(ShortCode.safeParse('abc12345x').success).toBe(false);
    expect(ShortCode.safeParse('abc-1234').success).toBe(false);
    expect(ApiKey.safeParse('svc_prod_sk_' + 'a'.repeat(32)).success).toBe(false);
  });
});

describe('parseApiKey', () => {
  it('reads kind and environment from the prefix', () => {
    expect(parseApiKey(newApiKey('secret', false))).toEqual({ kind: 'secret', livemode: false });
    expect(parseApiKey(newApiKey('secret', true))).toEqual({ kind: 'secret', livemode: true });
    expect(parseApiKey(newApiKey('publishable', false))).toEqual({ kind: 'publishable', livemode: false });
    expect(parseApiKey(newApiKey('publishable', true))).toEqual({ kind: 'publishable', livemode: true });
  });

  it('returns null for anything else', () => {
    for (const value of [
      '',
      'svc_test_sk_',
      'svc_test_sk_short',
      'sk_' + 'a'.repeat(32),
      'svc_test_xk_' + 'a'.repeat(32),
      ' svc_test_sk_' + 'a'.repeat(32),
    ]) {
      expect(parseApiKey(value)).toBeNull();
    }
  });
});
