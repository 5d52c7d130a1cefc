import { signPayload, type ProviderRequestType } from '@mmp/protocol';
import type { OutboundExchange, OutboundHttp } from './outbound.js';

/** One signed call of the service to a provider's webhook rail. */
export type ProviderCall = {
  endpoint: string;
  /** The rail's `whsec_` secret. */
  secret: string;
  event: ProviderRequestType;
  /** The exact body: what is signed is what is sent. */
  body: string;
  timeoutMs: number;
};

/** An ack is a few hundred bytes; a provider answering megabytes is not answering an ack. */
export const MAX_PROVIDER_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs a call to a provider's rail as protocol v1 signs it: `X-Service-Signature:
 * t=<ts>,v1=<hex>` (HMAC-SHA256 of `<ts>.<body>` with the rail's secret),
 * `X-Service-Timestamp` and `X-Service-Event`. A rail test's health.check and every order
 * delivery go through here, so through the outbound module's rules too: a public address
 * judged when the socket connects, one deadline, a capped answer.
 */
export function postToProvider(
  http: OutboundHttp,
  call: ProviderCall,
  nowMs = Date.now(),
): Promise<OutboundExchange> {
  const timestamp = Math.floor(nowMs / 1000);
  return http.send({
    url: call.endpoint,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signPayload(call.secret, call.body, timestamp),
      'x-service-timestamp': String(timestamp),
      'x-service-event': call.event,
    },
    body: call.body,
    timeoutMs: call.timeoutMs,
    maxBodyBytes: MAX_PROVIDER_ANSWER_BYTES,
  });
}

const REFUSED: Record<string, string> = {
  'not a URL': 'the endpoint is not a valid URL',
  'credentials in the URL': 'the endpoint must not carry credentials',
  'not https': 'the endpoint must use https://',
  'private address': 'the endpoint must be a public address',
};

/**
 * A reason of the outbound module (`outboundUrlRefusal`, a failed exchange) in words a
 * provider can act on, for a rail's test, an order's attempt or a refused rail: a refused
 * address says which rule, anything else is `unreachable: <class>`, never the remote host's
 * own error text.
 */
export function endpointFailureReason(reason: string): string {
  return REFUSED[reason] ?? `unreachable: ${reason}`;
}

/**
 * `HTTP <status>`, and for 401 and 403 the likely cause: an adapter verifying with another
 * secret than the rail's (the provider kit answers 401 on a signature mismatch), e.g. after a roll.
 */
export function providerHttpReason(status: number): string {
  return status === 401 || status === 403
    ? `HTTP ${status}: the endpoint refused the signed call; does it verify with this rail's whsec_ secret?`
    : `HTTP ${status}`;
}

/** The answer's body as JSON, or undefined when it is none (or was cut at the cap). */
export function providerAnswerJson(exchange: Extract<OutboundExchange, { kind: 'response' }>): unknown {
  if (exchange.truncated) return undefined;
  try {
    return JSON.parse(exchange.body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
