import {
  amountsEqual,
  isProtocolPayload,
  settlementOfOrder,
  type CertificationOrderStatus,
  type ExchangedMessage,
  type ExecutionOrder,
} from '@mmp/protocol';
import type { CaseOutcome } from '../../domain/run.js';
import {
  describeAnswer,
  describeOrder,
  errorFields,
  isSettledOrFailed,
  orderPayload,
  orderStatus,
  placeOrder,
  postSettlement,
  settlementEvidence,
  waitForOrder,
  type CaseContext,
  type SettledOrder,
} from './context.js';

/** Places an order with the adapter and waits for its settlement (or its failure). */
export async function settleOrder(
  ctx: CaseContext,
  options: Parameters<typeof orderPayload>[1],
): Promise<SettledOrder> {
  const order = orderPayload(ctx, options);
  const sent = await placeOrder(ctx, order);
  const status = await waitForOrder(
    ctx,
    order.idempotency_key,
    isSettledOrFailed,
    ctx.deps.config.settlementWaitMs,
  );
  return { order, status, exchanges: [sent, settlementEvidence(ctx, status)] };
}

/** Case 1: a success order is accepted, settled COMPLETED by the adapter, and the settlement applied. */
export async function validCompletedSettlement(ctx: CaseContext): Promise<CaseOutcome> {
  const { order, status, exchanges } = await ctx.settledOrder();
  const settlement = status.settlement;
  const passed =
    status.status === 'ACCEPTED' &&
    settlement?.status === 'COMPLETED' &&
    amountsEqual(settlement.amount, Number(order.amount));
  return { passed, observed: describeOrder(status), exchanges };
}

/**
 * Case 2: the failure number's order, accepted, settles FAILED: the transaction is failed,
 * never completed. Cases 1 to 3 need an order the adapter accepted (with its key echoed).
 */
export async function failedSettlement(ctx: CaseContext): Promise<CaseOutcome> {
  const { status, exchanges } = await settleOrder(ctx, { payee: 'failure', tag: 'case2' });
  return {
    passed: status.status === 'ACCEPTED' && status.settlement?.status === 'FAILED',
    observed: describeOrder(status),
    exchanges,
  };
}

/**
 * The adapter's own settlement of `settled` as JSON, to build variants from; when it sent
 * none (or a proprietary payload) a protocol v1 event for the order, signed with the
 * provider's real secret all the same.
 */
function baseEvent(settled: {
  order: ExecutionOrder;
  status: CertificationOrderStatus;
}): Record<string, unknown> {
  const raw = settled.status.settlement?.rawBody;
  const parsed = raw ? (JSON.parse(raw) as unknown) : null;
  if (isProtocolPayload(parsed)) return parsed as Record<string, unknown>;
  const { order } = settled;
  return settlementOfOrder(order, 'COMPLETED', new Date());
}

/** Case 3: a decimal major-unit amount ("150.00") is settled as such; the same event in cents is refused. */
export async function majorUnitAmount(ctx: CaseContext): Promise<CaseOutcome> {
  const settled = await settleOrder(ctx, { amount: '150.00', tag: 'case3' });
  const { settlement } = settled.status;
  const accepted =
    settled.status.status === 'ACCEPTED' &&
    settlement?.status === 'COMPLETED' &&
    amountsEqual(settlement.amount, 150);
  const cents = JSON.stringify({
    ...baseEvent(settled),
    idempotency_key: `${settled.order.idempotency_key}_cents`,
    amount: '15000',
  });
  const refused = await postSettlement(ctx, 'the same event with the amount in cents', cents);
  const centsRefused = refused.status === 422 && errorFields(refused.json).includes('amount');
  return {
    passed: accepted && centsRefused,
    observed: `adapter's settlement: ${describeOrder(settled.status)}; cents variant: ${describeAnswer(refused)}`,
    exchanges: [...settled.exchanges, refused.message],
  };
}

/** Cases 4 to 7 replay variants of case 1's settlement through the real ingestion route. */
async function replay(
  ctx: CaseContext,
  variant: (event: Record<string, unknown>) => { label: string; body: string; signature?: string },
  judge: (status: number | null, fields: string[]) => boolean,
  after?: (settled: SettledOrder) => Promise<{ ok: boolean; observed: string }>,
): Promise<CaseOutcome> {
  const settled = await ctx.settledOrder();
  const exchanges: ExchangedMessage[] = [settlementEvidence(ctx, settled.status)];
  const event = baseEvent(settled);
  if (!settled.status.settlement) {
    // No settlement of the adapter to replay: the event is sent once first, as it would have.
    const first = await postSettlement(ctx, 'the settlement the adapter did not send', JSON.stringify(event));
    exchanges.push(first.message);
  }
  const { label, body, signature } = variant(event);
  const answer = await postSettlement(ctx, label, body, signature);
  exchanges.push(answer.message);
  const judged = judge(answer.status, errorFields(answer.json));
  const effect = after ? await after(settled) : { ok: true, observed: '' };
  return {
    passed: judged && effect.ok,
    observed: `${describeAnswer(answer)}${effect.observed ? `; ${effect.observed}` : ''}`,
    exchanges,
  };
}

/** Case 4: the same event again is a 409, and changes nothing. */
export function repeatedKey(ctx: CaseContext): Promise<CaseOutcome> {
  return replay(
    ctx,
    (event) => ({ label: 'the same SettlementEvent again', body: JSON.stringify(event) }),
    (status) => status === 409,
    async (settled) => {
      const now = await orderStatus(ctx, settled.order.idempotency_key);
      const before = settled.status.settlement;
      const unchanged =
        now.status === settled.status.status &&
        (!before || (now.settlement?.status === before.status && now.settlement.amount === before.amount));
      return { ok: unchanged, observed: `afterwards ${describeOrder(now)}` };
    },
  );
}

/** Case 5: a status outside the vocabulary is a 422 naming `status`. */
export function statusOutsideVocabulary(ctx: CaseContext): Promise<CaseOutcome> {
  return replay(
    ctx,
    (event) => ({ label: 'status SETTLED', body: JSON.stringify({ ...event, status: 'SETTLED' }) }),
    (status, fields) => status === 422 && fields.includes('status'),
  );
}

/** Case 6: a malformed settled_at is a 422. */
export function malformedSettledAt(ctx: CaseContext): Promise<CaseOutcome> {
  return replay(
    ctx,
    (event) => ({
      label: 'settled_at 31/01/2025 12:00',
      body: JSON.stringify({ ...event, settled_at: '31/01/2025 12:00' }),
    }),
    (status) => status === 422,
  );
}

/** Case 7: a broken signature is a 403. */
export function signatureMismatch(ctx: CaseContext): Promise<CaseOutcome> {
  return replay(
    ctx,
    (event) => {
      const body = JSON.stringify(event);
      return { label: 'signature of another body', body, signature: '0'.repeat(64) };
    },
    (status) => status === 403,
  );
}
