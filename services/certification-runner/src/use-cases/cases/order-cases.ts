import { setTimeout as sleep } from 'node:timers/promises';
import { newWebhookSecret, type CertificationOrderStatus } from '@mmp/protocol';
import type { FaultMode, FaultRoute } from '../../relay/fault-relay.js';
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
} from './context.js';

/** Webhook case 8: a signed payment.execute straight to the adapter gets an ACCEPTED ack echoing its key. */
export async function signedOrderAccepted(ctx: CaseContext): Promise<CaseOutcome> {
  const order = orderPayload(ctx, { tag: 'case8' });
  const answer = await callAdapter(ctx, 'signed payment.execute', order, ctx.target.rail.secret ?? '');
  return {
    passed: answer.status === 200 && isAck(answer.json, order.idempotency_key),
    observed: describeAnswer(answer),
    exchanges: [answer.message],
  };
}

/** Webhook case 12: the same order signed with a secret that is not the rail's is refused with 401. */
export async function wrongSecretRejected(ctx: CaseContext): Promise<CaseOutcome> {
  const order = orderPayload(ctx, { tag: 'case12' });
  const answer = await callAdapter(
    ctx,
    'payment.execute signed with a wrong secret',
    order,
    newWebhookSecret(),
  );
  return { passed: answer.status === 401, observed: describeAnswer(answer), exchanges: [answer.message] };
}

/**
 * Cases 9 to 11 on a webhook rail: a real delivery (the rail's secret, delivery's timeouts
 * and attempts) to the fault relay in front of the adapter, until delivery gives up.
 */
async function throughRelay(ctx: CaseContext, mode: FaultMode, tag: string) {
  const route = ctx.deps.relay.open(mode, ctx.target.rail.endpoint ?? '');
  try {
    const order = orderPayload(ctx, { tag });
    const sent = await placeOrder(ctx, order, { relayEndpoint: route.url });
    const status = await waitForOrder(
      ctx,
      order.idempotency_key,
      (current) => current.status !== 'ROUTED',
      ctx.deps.config.deliveryWaitMs,
    );
    return { order, status, route, exchanges: [sent] };
  } finally {
    route.close();
  }
}

/**
 * The adapter saw the key again: every answer it gave was an ACCEPTED ack of the same key,
 * and it executed once (a second execution would push a second settlement, refused as a
 * duplicate). Judged after a grace period for that second settlement to arrive.
 */
async function executedOnce(ctx: CaseContext, orderKey: string, answers: FaultRoute['answers']) {
  await waitForOrder(ctx, orderKey, (status) => status.settlement !== null, ctx.deps.config.settlementWaitMs);
  await sleep(ctx.deps.config.duplicateGraceMs);
  const status = await orderStatus(ctx, orderKey);
  const duplicates = status.settlement?.duplicatesRefused ?? 0;
  const acked =
    answers.length > 0 && answers.every((answer) => answer.status === 200 && isAck(answer.body, orderKey));
  const observed = `the adapter answered the key ${answers.length} time(s)${
    acked ? ', each with the same ACCEPTED ack' : ', not always with an ACCEPTED ack of that key'
  }; ${duplicates === 0 ? 'executed once' : `executed again: ${duplicates} repeated settlement(s) of the key`}`;
  return { ok: acked && duplicates === 0, observed };
}

function deliveryFailed(status: CertificationOrderStatus, classification: string): boolean {
  return status.status === 'FAILED' && status.lastClassification === classification;
}

/** Webhook case 9: an ack echoing another key fails the delivery. */
export async function echoMismatchFails(ctx: CaseContext): Promise<CaseOutcome> {
  const { status, route, exchanges } = await throughRelay(ctx, 'rewrite-echo', 'case9');
  return {
    passed: deliveryFailed(status, 'ECHO_MISMATCH'),
    observed: `${describeOrder(status)}; ${status.reason ?? ''}`,
    exchanges: [...exchanges, ...route.exchanges],
  };
}

/** Webhook case 10: HTTP 500 fails the delivery; the key sent again is acked as a duplicate, executed once. */
export function http500Fails(ctx: CaseContext): Promise<CaseOutcome> {
  return failsThenRepeats(ctx, 'http-500', 'HTTP_ERROR', 'case10');
}

/**
 * Delivery through the relay must fail with `classification`; then the same key goes to the
 * adapter once more (on top of delivery's own retries), which must ack it and not execute it again.
 */
async function failsThenRepeats(
  ctx: CaseContext,
  mode: FaultMode,
  classification: string,
  tag: string,
): Promise<CaseOutcome> {
  const { order, status, route, exchanges } = await throughRelay(ctx, mode, tag);
  const again = await callAdapter(ctx, 'the same order again', order, ctx.target.rail.secret ?? '');
  const once = await executedOnce(ctx, order.idempotency_key, [
    ...route.answers,
    { status: again.status, body: again.json },
  ]);
  return {
    passed: deliveryFailed(status, classification) && once.ok,
    observed: `${describeOrder(status)}; ${once.observed}`,
    exchanges: [...exchanges, ...route.exchanges, again.message],
  };
}

/** Webhook case 11: a silent endpoint ends in TIMEOUT after delivery's attempts, each a repeat of the key. */
export function silentEndpointTimesOut(ctx: CaseContext): Promise<CaseOutcome> {
  return failsThenRepeats(ctx, 'withhold', 'TIMEOUT', 'case11');
}
