import { ProviderRequest, type ExecutionOrder, type ProviderAck } from '@mmp/protocol';
import { answerHealthCheck, paymentAck } from './acks.js';
import { verifyServiceCall, type IncomingHeaders } from './verify.js';

export type OrderDecision = { status: 'ACCEPTED' } | { status: 'REJECTED'; reason?: string };

export type HandlerAnswer = { status: number; body: ProviderAck | { error: string } };

/**
 * The provider side of the webhook transport, framework-free: verify over the raw body,
 * then parse, then answer a health.check or ack an order. `onOrder` must be idempotent per
 * idempotency_key (a repeated key is acked again, never executed twice) and should only
 * decide and queue the work: the ack is synchronous, the execution is not.
 */
export function createServiceCallHandler(options: {
  secret: string;
  onOrder: (order: ExecutionOrder) => Promise<OrderDecision>;
  toleranceSeconds?: number;
}) {
  return async (rawBody: string | Buffer, headers: IncomingHeaders): Promise<HandlerAnswer> => {
    const verdict = verifyServiceCall({
      rawBody,
      headers,
      secret: options.secret,
      toleranceSeconds: options.toleranceSeconds,
    });
    if (!verdict.ok) return { status: 401, body: { error: `signature ${verdict.reason}` } };
    let json: unknown;
    try {
      json = JSON.parse(rawBody.toString());
    } catch {
      return { status: 400, body: { error: 'body is not JSON' } };
    }
    const parsed = ProviderRequest.safeParse(json);
    if (!parsed.success)
      return { status: 422, body: { error: parsed.error.issues.map((issue) => issue.message).join('; ') } };
    const call = parsed.data;
    if (call.type === 'health.check') return { status: 200, body: answerHealthCheck(call) };
    const decision = await options.onOrder(call);
    return {
      status: 200,
      body: paymentAck(call, decision.status, decision.status === 'REJECTED' ? decision.reason : undefined),
    };
  };
}
