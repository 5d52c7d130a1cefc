import { isIP } from 'node:net';
import { z } from 'zod';
import { BaseEnv } from '@mmp/platform';

/** The names proxy-addr knows for the loopback, link-local and unique-local ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isNetwork(entry: string): boolean {
  if (NAMED_RANGES.has(entry) || isIP(entry) !== 0) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * `false`, a hop count, or the trusted proxies' addresses and networks, as Fastify's
 * `trustProxy` takes them. A bare `true` is refused: it believes the left-most
 * X-Forwarded-For entry, which the client writes, so a client could pick its own
 * rate-limit bucket.
 */
export const TrustProxy = z
  .string()
  .trim()
  .default('false')
  .transform((value, context): false | number | string[] => {
    if (value === '' || value === 'false' || value === '0') return false;
    if (/^\d+$/.test(value)) return Number(value);
    if (value === 'true') {
      context.addIssue({
        code: 'custom',
        message:
          'true would trust any X-Forwarded-For a client sends; give the number of proxies in front (e.g. 1) or their networks (e.g. 10.0.0.0/8)',
      });
      return z.NEVER;
    }
    const entries = value.split(',').map((entry) => entry.trim());
    const wrong = entries.filter((entry) => !isNetwork(entry));
    if (wrong.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `not an address or network: ${wrong.join(', ')} (use a hop count, or addresses and CIDR networks separated by commas)`,
      });
      return z.NEVER;
    }
    return entries;
  });
export type TrustProxy = z.output<typeof TrustProxy>;

export const Env = BaseEnv.extend({
  /** Bearer token of the admin API (`/v1/admin/…`) and the `mmp` CLI. */
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters'),
  /**
   * How long an API key found valid is believed without reading it again. A revocation,
   * roll or suspension applies at once on every replica (they tell each other); this bounds
   * it when that notice is lost. 0 reads the key on every request.
   */
  CREDENTIALS_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  /**
   * How long the gateway answers a merchant's read of a payment as it was last answered,
   * without asking payments. Every change of the payment drops it at once (payments tells
   * each write); this bounds it when that notice is lost. 0 asks payments every time.
   */
  REPLY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  /** Keys the HMAC-SHA256 hashes under which API keys are stored. */
  SERVICE_SECRET_KEY: z.string().min(32, 'must be at least 32 characters'),
  GATEWAY_HOST: z.string().default('127.0.0.1'),
  /** 0 picks a free port, which the `gateway listening` log line names. */
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Where clients reach the gateway; the OpenAPI server URL. */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
    .default('http://127.0.0.1:3000'),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /**
   * Requests per window for each API key, provider key or the admin token: 100 per second,
   * enough for a busy merchant backend and a pull provider polling several times a second.
   */
  RATE_LIMIT_KEY_MAX: z.coerce.number().int().positive().default(6000),
  /**
   * Requests per window for each client IP on public routes (and failed authentications).
   * Mobile operators put many shoppers behind one carrier-grade NAT address, each hosted
   * page polling its status every 2 s, so this is per address, not per person.
   */
  RATE_LIMIT_IP_MAX: z.coerce.number().int().positive().default(1200),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * Unset: each gateway instance counts on its own (N replicas give up to N times the budget).
   * Set (`redis://[:password@]host:6379[/db]`): replicas share counters in that Redis, under
   * keys namespaced by NATS_PREFIX. If Redis is unreachable, requests are served uncounted
   * (fail open): a payments API stays available rather than refusing every payer.
   */
  RATE_LIMIT_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /**
   * Which proxies' X-Forwarded-For to believe, so per-IP limits see the client, not the
   * proxy: their addresses and networks (`10.0.0.0/8,192.168.1.7`), or the number of
   * proxies in front (`1` for one ingress; only where clients cannot reach the gateway
   * around them, since a hop count trusts whoever connects). Unset or `false`: none, the
   * socket's address counts.
   */
  TRUST_PROXY: TrustProxy,
  /**
   * How long a request repeating an Idempotency-Key waits for the first one's answer: past
   * REQUEST_TIMEOUT_MS, so a live first request has answered (or failed) by then.
   */
  IDEMPOTENCY_WAIT_MS: z.coerce.number().int().nonnegative().default(8000),
  /** The lease of a claimed Idempotency-Key, renewed while its request runs: a crashed holder's key is free this long after. */
  IDEMPOTENCY_STALE_MS: z.coerce.number().int().positive().default(3000),
  /** How long `/v1/health` waits for each service's ping. */
  HEALTH_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
});
export type Env = typeof Env;
