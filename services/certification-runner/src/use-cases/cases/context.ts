import { setTimeout as sleep } from 'node:timers/promises';
import { postToProvider, type OutboundExchange } from '@mmp/platform';
import {
  CERTIFICATION_NUMBERS,
  hexHmac,
  newPaymentOrderKey,
  newPayoutOrderKey,
  routerForCertification,
  type CertificationOrderStatus,
  type CertificationTarget,
  type ExchangedMessage,
  type ExecutionOrder,
} from '@mmp/protocol';
import { exchange } from '../../domain/redact.js';
import type { CaseOutcome, Run } from '../../domain/run.js';
import type { RunnerDeps } from '../deps.js';

/** An order the adapter settled (or failed); the settlement cases replay case 1's settlement. */
export type SettledOrder = {
  order: ExecutionOrder;
  status: CertificationOrderStatus;
  exchanges: ExchangedMessage[];
};

/** Cases 8 to 12 take payment.execute orders; 13 to 17 repeat them with payout.execute. */
export type OrderKind = 'payment' | 'payout';

/** What every case of a run works with. */
export type CaseContext = {
  deps: RunnerDeps;
  run: Run;
  target: CertificationTarget;
  /**
   * A success order of `kind` settled by the adapter, once per run and kind, whichever case
   * asks first: the payment one is case 1's.
   */
  settledOrder(kind?: OrderKind): Promise<SettledOrder>;
};

/** One case of the run, by its number in the specification. */
export type CaseRun = (ctx: CaseContext) => Promise<CaseOutcome>;

export type HttpResult = { status: number | null; json: unknown; message: ExchangedMessage };

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function asResult(
  label: string,
  request: Parameters<typeof exchange>[1],
  answer: OutboundExchange,
): HttpResult {
  if (answer.kind !== 'response')
    return {
      status: null,
      json: undefined,
      message: exchange(label, request, null, `no answer: ${answer.kind}`),
    };
  const body = answer.body.toString('utf8');
  return {
    status: answer.status,
    json: jsonOf(body),
    message: exchange(label, request, { status: answer.status, headers: answer.headers, body }),
  };
}

/** An order for the run's channel: the minimum amount unless told, to a certification number. */
export function orderPayload(
  ctx: CaseContext,
  options: { payee?: 'success' | 'failure'; amount?: string; tag: string; kind?: OrderKind },
): ExecutionOrder {
  const { channel } = ctx.run;
  const kind =
    options.kind === 'payout'
      ? ({ type: 'payout.execute', idempotency_key: newPayoutOrderKey() } as const)
      : ({ type: 'payment.execute', idempotency_key: newPaymentOrderKey() } as const);
  return {
    protocol_version: '1',
    ...kind,
    amount: options.amount ?? '100',
    currency: channel.currency,
    network: channel.network,
    country: channel.country,
    payee: { msisdn: CERTIFICATION_NUMBERS[channel.network][options.payee ?? 'success'] },
    transaction_ref: `${ctx.run._id}_${options.tag}`,
    timestamp: Math.floor(Date.now() / 1000),
  };
}

/** Hands the order to provider-router: from there it travels by the rail's real transport. */
export async function placeOrder(
  ctx: CaseContext,
  payload: ExecutionOrder,
  options: { relayEndpoint?: string; expiresInMs?: number } = {},
): Promise<ExchangedMessage> {
  await ctx.deps.bus.request(routerForCertification.createOrder, {
    runId: ctx.run._id,
    providerId: ctx.run.providerId,
    railId: ctx.run.railId,
    payload,
    relayEndpoint: options.relayEndpoint ?? null,
    expiresInMs: options.expiresInMs ?? 15 * 60_000,
  });
  const how =
    ctx.run.transport === 'pull'
      ? 'queued for the adapter to pull (GET /v1/provider/orders)'
      : `delivered by provider-delivery to ${options.relayEndpoint ? 'the fault relay' : "the rail's endpoint"}`;
  return exchange(
    `certification order ${payload.idempotency_key}: ${how}`,
    {
      method: 'POST',
      url: ctx.target.rail.endpoint ?? '/v1/provider/orders',
      headers: {},
      body: JSON.stringify(payload),
    },
    null,
    'sent through the real transport; its outcome is read from provider-router',
  );
}

export function orderStatus(ctx: CaseContext, orderKey: string): Promise<CertificationOrderStatus> {
  return ctx.deps.bus.request(routerForCertification.orderStatus, { orderKey });
}

/** Polls the order until `done` holds or `timeoutMs` passes; the last status either way. */
export async function waitForOrder(
  ctx: CaseContext,
  orderKey: string,
  done: (status: CertificationOrderStatus) => boolean,
  timeoutMs: number,
): Promise<CertificationOrderStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await orderStatus(ctx, orderKey);
    if (done(status) || Date.now() >= deadline) return status;
    await sleep(ctx.deps.config.pollMs);
  }
}

/**
 * Accepted and settled (any final status), or failed: nothing more will come. A quick
 * adapter's settlement may land before delivery's outcome: both are waited for.
 */
export function isSettledOrFailed(status: CertificationOrderStatus): boolean {
  const settled = status.settlement !== null && status.settlement.status !== 'PENDING';
  return status.status === 'FAILED' || (status.status === 'ACCEPTED' && settled);
}

/** The adapter's own settlement as evidence, as the ingestion route received it. */
export function settlementEvidence(ctx: CaseContext, status: CertificationOrderStatus): ExchangedMessage {
  const url = `${ctx.deps.config.apiBase}/provider/webhooks/${ctx.run.providerId}`;
  return status.settlement
    ? exchange(
        "adapter's SettlementEvent, as the ingestion route received it",
        {
          method: 'POST',
          url,
          headers: { 'x-service-signature': 'signed' },
          body: status.settlement.rawBody,
        },
        { status: 200, headers: {}, body: null },
      )
    : exchange(
        'adapter settlement',
        { method: 'POST', url, headers: {}, body: null },
        null,
        'no settlement received',
      );
}

export function describeOrder(status: CertificationOrderStatus): string {
  const delivery = status.lastClassification ? ` (${status.lastClassification})` : '';
  const settlement = status.settlement
    ? `settlement ${status.settlement.status} amount ${status.settlement.amount}`
    : 'no settlement received';
  return `order ${status.status}${delivery}; ${settlement}`;
}

/**
 * A call to the system's own public API: a configured, trusted address (inside a cluster a
 * private one), so not through the outbound rules meant for providers' endpoints.
 */
async function callApi(
  ctx: CaseContext,
  label: string,
  request: { method: 'GET' | 'POST'; url: string; headers: Record<string, string>; body: string | null },
): Promise<HttpResult> {
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body ?? undefined,
      signal: AbortSignal.timeout(ctx.deps.config.callTimeoutMs),
    });
    const body = await response.text();
    return {
      status: response.status,
      json: jsonOf(body),
      message: exchange(label, request, {
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body,
      }),
    };
  } catch (error) {
    return {
      status: null,
      json: undefined,
      message: exchange(label, request, null, `no answer: ${(error as Error).name}`),
    };
  }
}

/** POSTs a signed body to the real settlement ingestion route, as a provider does. */
export async function postSettlement(
  ctx: CaseContext,
  label: string,
  body: string,
  signature = hexHmac(ctx.target.signingSecret, body),
): Promise<HttpResult> {
  const url = `${ctx.deps.config.apiBase}/provider/webhooks/${encodeURIComponent(ctx.run.providerId)}`;
  const headers = { 'content-type': 'application/json', 'x-service-signature': signature };
  return callApi(ctx, label, { method: 'POST', url, headers, body });
}

/** A GET on the system's public API (the pull route) with `apiKey`. */
export async function getApi(
  ctx: CaseContext,
  label: string,
  path: string,
  apiKey: string,
): Promise<HttpResult> {
  const url = `${ctx.deps.config.apiBase}${path}`;
  return callApi(ctx, label, {
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${apiKey}` },
    body: null,
  });
}

/** A call signed like provider-delivery's, straight to the adapter (cases 8, 10, 12). */
export async function callAdapter(
  ctx: CaseContext,
  label: string,
  payload: ExecutionOrder,
  secret: string,
): Promise<HttpResult> {
  const endpoint = ctx.target.rail.endpoint ?? '';
  const body = JSON.stringify(payload);
  const answer = await postToProvider(ctx.deps.http, {
    endpoint,
    secret,
    event: payload.type,
    body,
    timeoutMs: ctx.deps.config.callTimeoutMs,
  });
  return asResult(
    label,
    {
      method: 'POST',
      url: endpoint,
      headers: { 'x-service-signature': 'signed', 'x-service-event': payload.type },
      body,
    },
    answer,
  );
}

/** The field names of a 422's envelope. */
export function errorFields(json: unknown): string[] {
  const errors = (json as { error?: { errors?: { field?: unknown }[] } } | undefined)?.error?.errors;
  return Array.isArray(errors) ? errors.map((entry) => String(entry.field)) : [];
}

/** The ack an order takes: payment.ack or payout.ack. */
export function ackTypeOf(order: Pick<ExecutionOrder, 'type'>): 'payment.ack' | 'payout.ack' {
  return order.type === 'payout.execute' ? 'payout.ack' : 'payment.ack';
}

/** An ACCEPTED ack of `order`, echoing its key. */
export function isAck(json: unknown, order: Pick<ExecutionOrder, 'type' | 'idempotency_key'>): boolean {
  const ack = json as { type?: unknown; idempotency_key?: unknown; status?: unknown } | undefined;
  return (
    ack?.type === ackTypeOf(order) &&
    ack.idempotency_key === order.idempotency_key &&
    ack.status === 'ACCEPTED'
  );
}

export function describeAnswer(result: HttpResult): string {
  if (result.status === null) return 'no answer';
  return `HTTP ${result.status} ${result.message.response?.body?.slice(0, 300) ?? ''}`.trimEnd();
}
