import type { ExecutionOrder, HealthAck, HealthCheck, OrderAck } from '@mmp/protocol';

/** The answer to a health.check: the nonce echoed exactly. */
export function answerHealthCheck(check: Pick<HealthCheck, 'nonce'>): HealthAck {
  return { type: 'health.ack', nonce: check.nonce };
}

/**
 * The ack of an order (payment.ack for payment.execute, payout.ack for payout.execute),
 * echoing its idempotency_key. ACCEPTED means accepted for execution, not paid: the
 * outcome follows later as a SettlementEvent.
 */
export function paymentAck(
  order: Pick<ExecutionOrder, 'type' | 'idempotency_key'>,
  status: 'ACCEPTED' | 'REJECTED',
  reason?: string,
): OrderAck {
  const type = order.type === 'payout.execute' ? 'payout.ack' : 'payment.ack';
  return reason === undefined
    ? { type, idempotency_key: order.idempotency_key, status }
    : { type, idempotency_key: order.idempotency_key, status, reason };
}
