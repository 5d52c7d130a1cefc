import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62 * 4: bytes at or above it are dropped so that `byte % 62` is uniform (no modulo bias). */
const UNBIASED_LIMIT = 248;

/**
 * Random bytes are drawn from the OS 4 KiB at a time and handed out from that pool: one
 * system call per id was 2 to 4 % of a create's CPU. Bytes are never handed out twice.
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** Draws a new pool when fewer than `count` bytes are left; the rest of the old one is dropped. */
function reserve(count: number): void {
  if (poolOffset + count > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
}

function nextRandomByte(): number {
  reserve(1);
  return pool[poolOffset++]!;
}

function nextRandomBytes(count: number): Buffer {
  reserve(count);
  poolOffset += count;
  return pool.subarray(poolOffset - count, poolOffset);
}

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    // Bytes at or above 248 are dropped so that `byte % 62` stays uniform.
    if (byte < UNBIASED_LIMIT) out += BASE62[byte % 62];
  }
  return out;
}

/** Milliseconds since 1970 as 8 base62 digits, whose text order is their time order (until 8888). */
function base62Time(ms: number): string {
  let out = '';
  for (let rest = ms, i = 0; i < 8; i += 1, rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
  return out;
}

/**
 * An id of `length` base62 characters that begins with its creation time (8 characters) and
 * goes on at random (the rest; 16 of them are ~95 bits). For records written often and kept:
 * a store's index of such ids grows at its end, where a random id touched a page anywhere
 * in it on every insert. The creation time it shows is a field of the record anyway.
 */
export function timeOrderedBase62(length: number, now = Date.now()): string {
  return base62Time(now) + randomBase62(length - 8);
}

/** The millisecond and counter of the last UUID made, as `uuid` keeps them for its own. */
const v7Clock = { msecs: -Infinity, seq: 0 };

/**
 * A UUID version 7: its first 48 bits are its creation time in milliseconds, the other 74 a
 * counter seeded at random each millisecond (32) and random bits (42). Ids of stored records
 * are keys of their collections' indexes; a random (v4) one touched a page anywhere in the
 * index at every insert, a v7 one appends.
 *
 * Its random bytes come from the pool: left to itself, `uuid` asks the OS for 16 bytes per
 * id (6 µs, against 0.3 from the pool). Given its bytes it keeps no state, so the clock it
 * keeps is kept here, as it keeps it (RFC 9562's first method): within one millisecond the
 * counter goes up by one, so ids made in order sort in order.
 */
export function uuid(now = Date.now()): string {
  const random = nextRandomBytes(16);
  if (now > v7Clock.msecs) {
    v7Clock.msecs = now;
    v7Clock.seq = random.readUInt32BE(6) & 0x7fffffff;
  } else {
    v7Clock.seq = (v7Clock.seq + 1) | 0;
    if (v7Clock.seq === 0) v7Clock.msecs += 1;
  }
  return uuidv7({ random, msecs: v7Clock.msecs, seq: v7Clock.seq });
}

/**
 * Identifiers: 24 base62 chars is ~143 bits, beyond guessing and collisions. Payment tokens
 * and checkout session ids, the most written keys, begin with their time (8 chars) and keep
 * 16 random ones (~95 bits), still beyond guessing; see timeOrderedBase62.
 */
const ID_LENGTH = 24;
/** Secrets and keys: 32 base62 chars, ~190 bits. */
const SECRET_LENGTH = 32;

export const ID_PREFIX = {
  paymentToken: 'pay_',
  checkoutSession: 'cs_',
  event: 'evt_',
  paymentOrder: 'pexec_',
  payoutOrder: 'pexo_',
  refund: 'rf_',
  payout: 'po_',
  webhookSecret: 'whsec_',
  providerApiKey: 'sk_',
  request: 'req_',
} as const;

export const newPaymentToken = (): string => ID_PREFIX.paymentToken + timeOrderedBase62(ID_LENGTH);
export const newCheckoutSessionId = (): string => ID_PREFIX.checkoutSession + timeOrderedBase62(ID_LENGTH);
export const newEventId = (): string => ID_PREFIX.event + randomBase62(ID_LENGTH);
export const newPaymentOrderKey = (): string => ID_PREFIX.paymentOrder + randomBase62(ID_LENGTH);
export const newPayoutOrderKey = (): string => ID_PREFIX.payoutOrder + randomBase62(ID_LENGTH);
export const newRefundId = (): string => ID_PREFIX.refund + randomBase62(ID_LENGTH);
export const newPayoutId = (): string => ID_PREFIX.payout + randomBase62(ID_LENGTH);
export const newWebhookSecret = (): string => ID_PREFIX.webhookSecret + randomBase62(SECRET_LENGTH);
export const newProviderApiKey = (): string => ID_PREFIX.providerApiKey + randomBase62(SECRET_LENGTH);
export const newRequestId = (): string => ID_PREFIX.request + randomBase62(ID_LENGTH);

export type ApiKeyKind = 'secret' | 'publishable';

export function newApiKey(kind: ApiKeyKind, livemode: boolean): string {
  return `svc_${livemode ? 'live' : 'test'}_${kind === 'secret' ? 'sk' : 'pk'}_${randomBase62(SECRET_LENGTH)}`;
}

/** Short codes of payment links: 8 base62 chars, 62^8 ≈ 2.2e14, unguessable by enumeration. */
export function shortCode(): string {
  return randomBase62(8);
}

/**
 * An id of `kind`: its prefix, then at least `min` base62 characters; its error names what it
 * must be. Ids are minted with 24 characters and accepted from 16; secrets need all 32.
 */
function prefixedId(kind: keyof typeof ID_PREFIX, min: number, what: string) {
  const prefix = ID_PREFIX[kind];
  return z.string().regex(new RegExp(`^${prefix}[A-Za-z0-9]{${min},}$`), `must be ${what} (${prefix}…)`);
}

export const PaymentToken = prefixedId('paymentToken', 16, 'a payment token');
export const CheckoutSessionId = prefixedId('checkoutSession', 16, 'a checkout session id');
export const EventId = prefixedId('event', 16, 'an event id');
export const PaymentOrderKey = prefixedId('paymentOrder', 16, 'a payment order key');
export const PayoutOrderKey = prefixedId('payoutOrder', 16, 'a payout order key');
export const RefundId = prefixedId('refund', 16, 'a refund id');
export const PayoutId = prefixedId('payout', 16, 'a payout id');
export const WebhookSecret = prefixedId('webhookSecret', 32, 'a webhook secret');
export const ProviderApiKey = prefixedId('providerApiKey', 32, 'a provider API key');
export const RequestId = prefixedId('request', 16, 'a request id');
export const ShortCode = z.string().regex(/^[A-Za-z0-9]{8}$/, 'must be 8 alphanumeric characters');
export type ShortCode = z.infer<typeof ShortCode>;
export const Uuid = z.uuid();
export type Uuid = z.infer<typeof Uuid>;

const API_KEY_PATTERN = /^svc_(test|live)_(sk|pk)_[A-Za-z0-9]{32,}$/;
export const ApiKey = z.string().regex(API_KEY_PATTERN, 'must be an API key (svc_test_sk_…, svc_live_pk_…)');
export type ApiKey = z.infer<typeof ApiKey>;

export interface ApiKeyInfo {
  kind: ApiKeyKind;
  livemode: boolean;
}

/** What the prefix says; whether the key exists is the gateway's question. */
export function parseApiKey(value: string): ApiKeyInfo | null {
  const match = API_KEY_PATTERN.exec(value);
  if (!match) return null;
  return { kind: match[2] === 'sk' ? 'secret' : 'publishable', livemode: match[1] === 'live' };
}
