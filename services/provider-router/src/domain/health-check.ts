import { HealthAck, type HealthCheck } from '@mmp/protocol';
import {
  endpointFailureReason,
  providerAnswerJson,
  providerHttpReason,
  type OutboundExchange,
} from '@mmp/platform';
import type { RailTestResult } from './rail.js';

export function healthCheckBody(nonce: string, nowMs: number): HealthCheck {
  return { protocol_version: '1', type: 'health.check', nonce, timestamp: Math.floor(nowMs / 1000) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why an answer to a health.check is not a passing one, or null when it is. */
function healthAckRefusal(body: unknown, nonce: string): string | null {
  if (!isRecord(body) || body.type !== 'health.ack') return 'the answer is not a health.ack';
  if (body.nonce === undefined) return 'the health.ack carries no nonce';
  if (body.nonce !== nonce) return 'the health.ack echoes a different nonce';
  if (!HealthAck.safeParse(body).success) return 'the health.ack has unknown or invalid fields';
  return null;
}

/**
 * A rail test passes only on HTTP 200 with a health.ack echoing the nonce it was sent, so
 * an endpoint replaying an old answer fails. Anything else is shown with its reason.
 */
export function judgeHealthCheck(exchange: OutboundExchange, nonce: string): Omit<RailTestResult, 'at'> {
  const { latencyMs } = exchange;
  if (exchange.kind === 'timeout')
    return { ok: false, reason: 'timeout: the endpoint did not answer in time', httpStatus: null, latencyMs };
  if (exchange.kind === 'failed')
    return { ok: false, reason: endpointFailureReason(exchange.reason), httpStatus: null, latencyMs };
  const httpStatus = exchange.status;
  if (httpStatus !== 200) return { ok: false, reason: providerHttpReason(httpStatus), httpStatus, latencyMs };
  const refusal = healthAckRefusal(providerAnswerJson(exchange), nonce);
  return {
    ok: refusal === null,
    reason: refusal ?? 'health.ack with the matching nonce',
    httpStatus,
    latencyMs,
  };
}
