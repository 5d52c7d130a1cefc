import { OrderAck, type DeliveryClassification } from '@mmp/protocol';
import {
  endpointFailureReason,
  providerAnswerJson,
  providerHttpReason,
  type OutboundExchange,
} from '@mmp/platform';

export type Verdict = {
  classification: DeliveryClassification;
  reason: string | null;
  /** Worth another attempt with the same key (timeout, 502, 503, 504). */
  transient: boolean;
  ack: OrderAck | null;
};

const TRANSIENT_STATUSES = new Set([502, 503, 504]);

function failed(classification: DeliveryClassification, reason: string, transient = false): Verdict {
  return { classification, reason, transient, ack: null };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Judges an order delivery. Only HTTP 200 with a parseable ack of the right type that
 * echoes the exact key counts as an answer; anything else is a failed delivery, never an
 * acceptance. An unreachable or refused endpoint is not retried here: the router fails over.
 */
export function judgeOrderExchange(
  exchange: OutboundExchange,
  expected: { type: OrderAck['type']; key: string },
): Verdict {
  if (exchange.kind === 'timeout') return failed('TIMEOUT', 'the provider did not answer in time', true);
  if (exchange.kind === 'failed') return failed('UNREACHABLE', endpointFailureReason(exchange.reason));
  const { status } = exchange;
  if (status !== 200) return failed('HTTP_ERROR', providerHttpReason(status), TRANSIENT_STATUSES.has(status));
  const body = providerAnswerJson(exchange);
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
