import { setTimeout as sleep } from 'node:timers/promises';
import { newWebhookSecret, type CertificationOrderStatus, type ExecutionOrder } from '@mmp/protocol';
import type { AdapterAnswer, FaultMode } from '../../relay/fault-relay.js';
import type { CaseOutcome } from '../../domain/run.js';
import {
  callAdapter,
  describeAnswer,
  describeOrder,
  isAck,
  orderPayload,
  orderStatus,
  placeOrder,
  waitForOrder,
  type CaseContext,
  type CaseRun,
  type OrderKind,
} from './context.js';

/**
 * Cases 9 to 11 on a webhook rail: a real delivery (the rail's secret, delivery's timeouts
 * and attempts) to the fault relay in front of the adapter, until delivery gives up.
 */
async function throughRelay(ctx: CaseContext, kind: OrderKind, mode: FaultMode, tag: string) {
  const route = await ctx.deps.relay.open(mode, ctx.target.rail.endpoint ?? '');
  const order = orderPayload(ctx, { tag, kind });
  try {
    const sent = await placeOrder(ctx, order, { relayEndpoint: route.url });
    const status = await waitForOrder(
      ctx,
      order.idempotency_key,
      (current) => current.status !== 'ROUTED',
      ctx.deps.config.deliveryWaitMs,
    );
    const seen = await ctx.deps.relay.close(route.token);
    return { order, status, answers: seen.answers, exchanges: [sent, ...seen.exchanges] };
  } catch (error) {
    await ctx.deps.relay.close(route.token);
    throw error;
  }
}

/**
 * The adapter saw the key again: every answer it gave was an ACCEPTED ack of the same key,
 * and it executed once (a second execution would push a second settlement, refused as a
 * duplicate). Judged after a grace period for that second settlement to arrive.
 */
async function executedOnce(ctx: CaseContext, order: ExecutionOrder, answers: AdapterAnswer[]) {
  const key = order.idempotency_key;
  await waitForOrder(ctx, key, (status) => status.settlement !== null, ctx.deps.config.settlementWaitMs);
  await sleep(ctx.deps.config.duplicateGraceMs);
  const status = await orderStatus(ctx, key);
  const duplicates = status.settlement?.duplicatesRefused ?? 0;
  const acked =
    answers.length > 0 && answers.every((answer) => answer.status === 200 && isAck(answer.body, order));
  const observed = `the adapter answered the key ${answers.length} time(s)${
    acked ? ', each with the same ACCEPTED ack' : ', not always with an ACCEPTED ack of that key'
  }; ${duplicates === 0 ? 'executed once' : `executed again: ${duplicates} repeated settlement(s) of the key`}`;
  return { ok: acked && duplicates === 0, observed };
}

function deliveryFailed(status: CertificationOrderStatus, classification: string): boolean {
  return status.status === 'FAILED' && status.lastClassification === classification;
}

/**
 * Delivery through the relay must fail with `classification`; then the same key goes to the
 * adapter once more (on top of delivery's own retries), which must ack it and not execute it again.
 */
async function failsThenRepeats(
  ctx: CaseContext,
  kind: OrderKind,
  mode: FaultMode,
  classification: string,
  tag: string,
): Promise<CaseOutcome> {
  const { order, status, answers, exchanges } = await throughRelay(ctx, kind, mode, tag);
  const again = await callAdapter(ctx, 'the same order again', order, ctx.target.rail.secret ?? '');
  const once = await executedOnce(ctx, order, [...answers, { status: again.status, body: again.json }]);
  return {
    passed: deliveryFailed(status, classification) && once.ok,
    observed: `${describeOrder(status)}; ${once.observed}`,
    exchanges: [...exchanges, again.message],
  };
}

/**
 * Cases 8 to 12 of a webhook rail for `kind` of order (payment: 8 to 12; payout: 13 to 17),
 * by their place in the table: 8 a signed order straight to the adapter gets an ACCEPTED ack
 * echoing its key; 9 an ack echoing another key fails the delivery; 10 HTTP 500 fails it and
 * the key sent again is acked as a duplicate, executed once; 11 a silent endpoint ends in
 * TIMEOUT after delivery's attempts, each a repeat of the key; 12 an order signed with a
 * secret that is not the rail's is refused with 401.
 */
export function webhookOrderCases(kind: OrderKind, first: number): Record<number, CaseRun> {
  const tag = (offset: number) => `case${first + offset}`;
  const type = kind === 'payout' ? 'payout.execute' : 'payment.execute';
  return {
    [first]: async (ctx) => {
      const order = orderPayload(ctx, { tag: tag(0), kind });
      const answer = await callAdapter(ctx, `signed ${type}`, order, ctx.target.rail.secret ?? '');
      return {
        passed: answer.status === 200 && isAck(answer.json, order),
        observed: describeAnswer(answer),
        exchanges: [answer.message],
      };
    },
    [first + 1]: async (ctx) => {
      const { status, exchanges } = await throughRelay(ctx, kind, 'rewrite-echo', tag(1));
      return {
        passed: deliveryFailed(status, 'ECHO_MISMATCH'),
        observed: `${describeOrder(status)}; ${status.reason ?? ''}`,
        exchanges,
      };
    },
    [first + 2]: (ctx) => failsThenRepeats(ctx, kind, 'http-500', 'HTTP_ERROR', tag(2)),
    [first + 3]: (ctx) => failsThenRepeats(ctx, kind, 'withhold', 'TIMEOUT', tag(3)),
    [first + 4]: async (ctx) => {
      const order = orderPayload(ctx, { tag: tag(4), kind });
      const answer = await callAdapter(ctx, `${type} signed with a wrong secret`, order, newWebhookSecret());
      return { passed: answer.status === 401, observed: describeAnswer(answer), exchanges: [answer.message] };
    },
  };
}
