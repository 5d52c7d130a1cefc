import {
  SettlementEvent,
  hexHmac,
  isCertificationFailureNumber,
  parseOrThrow,
  settlementOfOrder,
  type ExecutionOrder,
} from '@mmp/protocol';
import { apiBase, SERVICE_CALL_TIMEOUT_MS } from './base-url.js';
import { exchangeHttp } from './http-exchange.js';

export type SignedSettlement = { body: string; signature: string };

/**
 * Serialises once and signs those bytes: `x-service-signature` is the hex HMAC-SHA256 of
 * the exact body string with the provider's signing secret. Send `body` as is.
 */
export function signSettlement(secret: string, event: SettlementEvent): SignedSettlement {
  const body = JSON.stringify(parseOrThrow(SettlementEvent, event));
  return { body, signature: hexHmac(secret, body) };
}

export type PushResult = { status: number; body: unknown };

/**
 * POSTs a SettlementEvent to `{baseUrl}/provider/webhooks/{providerId}` (baseUrl with or
 * without /v1). 200 applied, 409 already seen (fine on a retry), 403 bad signature, 422
 * invalid; `body` is the service's answer, its `error` saying why.
 */
export async function pushSettlement(options: {
  baseUrl: string;
  providerId: string;
  signingSecret: string;
  event: SettlementEvent;
  timeoutMs?: number;
}): Promise<PushResult> {
  const { body, signature } = signSettlement(options.signingSecret, options.event);
  const url = `${apiBase(options.baseUrl)}/provider/webhooks/${encodeURIComponent(options.providerId)}`;
  const answer = await exchangeHttp(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signature },
    body,
    timeoutMs: options.timeoutMs ?? SERVICE_CALL_TIMEOUT_MS,
  });
  return { status: answer.status, body: parseMaybe(answer.text) };
}

export function parseMaybe(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return text;
  }
}

/**
 * The SettlementEvent of an executed order: its key, reference, amount, currency and
 * network, with `status` and the time it settled. An order to a certification failure
 * number settles FAILED unless told otherwise (certification's case 2).
 */
export function settlementOf(
  order: ExecutionOrder,
  status: SettlementEvent['status'] = isCertificationFailureNumber(payeeNumber(order))
    ? 'FAILED'
    : 'COMPLETED',
  settledAt = new Date(),
): SettlementEvent {
  return settlementOfOrder(order, status, settledAt);
}

function payeeNumber(order: ExecutionOrder): string {
  return 'msisdn' in order.payee ? order.payee.msisdn : '';
}
