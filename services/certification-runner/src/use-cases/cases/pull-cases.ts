import { deliveryOperations, newProviderApiKey, type OrderAck } from '@mmp/protocol';
import { exchange } from '../../domain/redact.js';
import {
  ackTypeOf,
  describeAnswer,
  describeOrder,
  getApi,
  orderPayload,
  placeOrder,
  waitForOrder,
  type CaseContext,
  type CaseRun,
  type OrderKind,
} from './context.js';
import { settleOrder } from './settlement-cases.js';

/** An ack of a certification order the adapter did not send, judged by the pull route's rules. */
async function probeAck(ctx: CaseContext, label: string, orderKey: string, ack: OrderAck) {
  const answer = await ctx.deps.bus.request(deliveryOperations.certificationAck, {
    providerId: ctx.run.providerId,
    orderKey,
    ack,
  });
  const message = exchange(
    label,
    {
      method: 'POST',
      url: `${ctx.deps.config.apiBase}/provider/orders/${orderKey}/ack`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ack),
    },
    { status: answer.status, headers: {}, body: JSON.stringify(answer.body) },
  );
  return { status: answer.status, message };
}

/**
 * Pull rails have no endpoint the runner can sign a call to or put a relay in front of: what
 * replaces cases 8 to 12 (and 13 to 17 for payouts) is in docs/decisions.md (Certification).
 * 8: the adapter pulls a success order and acks it ACCEPTED with the exact key (the ack route
 * refuses any other echo); 9: an ack echoing another key is refused (422); 10: once the
 * adapter acked, a different answer for the key fails explicitly (409), and the key was
 * executed once; 11: an order left unpulled past expires_at fails with an explicit EXPIRED;
 * 12: fetching orders with a key that is not (or no longer) the provider's is refused (401).
 */
export function pullOrderCases(kind: OrderKind, first: number): Record<number, CaseRun> {
  const tag = (offset: number) => `case${first + offset}`;
  return {
    [first]: async (ctx) => {
      const { status, exchanges } = await ctx.settledOrder(kind);
      const accepted = status.status === 'ACCEPTED' && status.lastClassification === 'ACCEPTED';
      return { passed: accepted, observed: describeOrder(status), exchanges };
    },
    [first + 1]: async (ctx) => {
      const { order, status, exchanges } = await ctx.settledOrder(kind);
      const key = order.idempotency_key;
      const probe = await probeAck(ctx, 'ack echoing another idempotency_key', key, {
        type: ackTypeOf(order),
        idempotency_key: `${key}_other`,
        status: 'ACCEPTED',
      });
      return {
        passed: probe.status === 422,
        observed: `HTTP ${probe.status}; ${describeOrder(status)}`,
        exchanges: [...exchanges, probe.message],
      };
    },
    [first + 2]: async (ctx) => {
      const settled = await settleOrder(ctx, { tag: tag(2), kind });
      const key = settled.order.idempotency_key;
      const probe = await probeAck(ctx, 'a second, different ack of the same key', key, {
        type: ackTypeOf(settled.order),
        idempotency_key: key,
        status: 'REJECTED',
        reason: 'certification probe',
      });
      const duplicates = settled.status.settlement?.duplicatesRefused ?? 0;
      const executions =
        duplicates === 0 ? 'executed once' : `executed again: ${duplicates} repeated settlement(s)`;
      return {
        passed: settled.status.status === 'ACCEPTED' && probe.status === 409 && duplicates === 0,
        observed: `HTTP ${probe.status}; ${describeOrder(settled.status)}; ${executions}`,
        exchanges: [...settled.exchanges, probe.message],
      };
    },
    [first + 3]: async (ctx) => {
      const order = orderPayload(ctx, { tag: tag(3), kind });
      const sent = await placeOrder(ctx, order, { expiresInMs: 0 });
      const status = await waitForOrder(
        ctx,
        order.idempotency_key,
        (current) => current.status === 'FAILED',
        ctx.deps.config.deliveryWaitMs,
      );
      return {
        passed: status.status === 'FAILED' && status.lastClassification === 'EXPIRED',
        observed: `${describeOrder(status)}; ${status.reason ?? ''}`,
        exchanges: [sent],
      };
    },
    [first + 4]: async (ctx) => {
      const answer = await getApi(
        ctx,
        'GET /provider/orders with a revoked key',
        '/provider/orders',
        newProviderApiKey(),
      );
      return { passed: answer.status === 401, observed: describeAnswer(answer), exchanges: [answer.message] };
    },
  };
}
