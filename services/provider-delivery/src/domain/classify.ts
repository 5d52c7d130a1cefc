import { HealthAck, OrderAck, type DeliveryClassification } from '@mmp/protocol';

/** What came back from one signed POST, before any judgement. */
export type Exchange =
  | { kind: 'response'; httpStatus: number; body: string; latencyMs: number }
  | { kind: 'timeout'; latencyMs: number }
  | { kind: 'unreachable'; reason: string; latencyMs: number };

export type Verdict = {
  classification: DeliveryClassification;
  reason: string | null;
  /** Worth another attempt with the same key (timeout, 502, 503, 504). */
  transient: boolean;
  ack: OrderAck | null;
};

const TRANSIENT_STATUSES = new Set([502, 503, 504]);

/**
 * `HTTP <status>`, and for 401 and 403 the likely cause: an adapter verifying with another
 * secret than the rail's (the kit answers 401 on a signature mismatch), e.g. after a roll.
 */
function httpReason(httpStatus: number): string {
  return httpStatus === 401 || httpStatus === 403
    ? `HTTP ${httpStatus}: the endpoint refused the signed call; does it verify with this rail's whsec_ secret?`
    : `HTTP ${httpStatus}`;
}

function failed(classification: DeliveryClassification, reason: string, transient = false): Verdict {
  return { classification, reason, transient, ack: null };
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Judges an order delivery. Only HTTP 200 with a parseable ack of the right type that
 * echoes the exact key counts as an answer; anything else is a failed delivery, never an
 * acceptance. An unreachable host is not retried here: the router fails over instead.
 */
export function judgeOrderExchange(
  exchange: Exchange,
  expected: { type: OrderAck['type']; key: string },
): Verdict {
  if (exchange.kind === 'timeout') return failed('TIMEOUT', 'the provider did not answer in time', true);
  if (exchange.kind === 'unreachable') return failed('UNREACHABLE', exchange.reason);
  const { httpStatus } = exchange;
  if (httpStatus !== 200)
    return failed('HTTP_ERROR', httpReason(httpStatus), TRANSIENT_STATUSES.has(httpStatus));
  const body = parseJson(exchange.body);
  if (!isRecord(body)) return failed('BAD_ACK', 'the ack body is not a JSON object');
  if (body.type !== expected.type) return failed('BAD_ACK', `expected an ack of type ${expected.type}`);
  if (body.idempotency_key !== expected.key) {
    return failed(
      'ECHO_MISMATCH',
      body.idempotency_key === undefined
        ? 'the ack does not echo idempotency_key'
        : 'the ack echoes a different idempotency_key',
    );
  }
  const parsed = OrderAck.safeParse(body);
  if (!parsed.success)
    return failed('BAD_ACK', `invalid ack: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  const ack = parsed.data;
  return ack.status === 'ACCEPTED'
    ? { classification: 'ACCEPTED', reason: null, transient: false, ack }
    : { classification: 'REJECTED', reason: ack.reason ?? 'rejected by the provider', transient: false, ack };
}

export type ProbeVerdict = { ok: boolean; reason: string | null };

/** A rail test passes only on HTTP 200 with a health.ack echoing the nonce. */
export function judgeProbeExchange(exchange: Exchange, nonce: string): ProbeVerdict {
  if (exchange.kind === 'timeout')
    return { ok: false, reason: 'timeout: the endpoint did not answer in time' };
  if (exchange.kind === 'unreachable') return { ok: false, reason: `unreachable: ${exchange.reason}` };
  if (exchange.httpStatus !== 200) return { ok: false, reason: httpReason(exchange.httpStatus) };
  const body = parseJson(exchange.body);
  if (!isRecord(body) || body.type !== 'health.ack')
    return { ok: false, reason: 'the answer is not a health.ack' };
  if (body.nonce === undefined) return { ok: false, reason: 'the health.ack carries no nonce' };
  if (body.nonce !== nonce) return { ok: false, reason: 'the health.ack echoes a different nonce' };
  if (!HealthAck.safeParse(body).success)
    return { ok: false, reason: 'the health.ack has unknown or invalid fields' };
  return { ok: true, reason: null };
}

/** Backoff before attempt `attempt + 1`: base, then doubling, with up to 20 % jitter. */
export function backoffMs(baseMs: number, attempt: number, random = Math.random): number {
  const delay = baseMs * 2 ** Math.max(0, attempt - 1);
  return Math.round(delay * (1 + 0.2 * random()));
}
