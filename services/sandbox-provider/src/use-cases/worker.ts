import pMap from 'p-map';
import { insertOnce, type Logger } from '@mmp/platform';
import {
  paymentAck,
  pushSettlement,
  ServiceCallError,
  settlementOf,
  type ExecutionOrder,
  type PullClient,
  type PullOrder,
} from '@mmp/provider-kit';
import { planFor, type SettleDelays } from '../domain/wallets.js';
import {
  findUnacked,
  finishExecution,
  soonestSettlements,
  startWaiting,
  type Execution,
  type Executions,
} from '../store/sandbox.js';
import type { Credentials } from './registration.js';

export type WorkerDeps = {
  executions: Executions;
  pull: PullClient;
  credentials: Credentials;
  baseUrl: string;
  delays: SettleDelays;
  log: Logger;
};

/**
 * Orders, acks and settlements handled at once within a round. A provider works its orders
 * side by side; one at a time, each waiting on its ack's round trip, the sandbox topped out
 * at about 25 orders a second and every payment behind it queued.
 */
const CONCURRENCY = 16;

/**
 * Works on every item, CONCURRENCY at once; a failure is logged and left for a later round.
 * Resolves with the number of failures.
 */
async function sideBySide<T>(
  deps: WorkerDeps,
  items: readonly T[],
  orderKey: (item: T) => string,
  work: (item: T) => Promise<void>,
  failure: string,
): Promise<number> {
  let failures = 0;
  await pMap(
    items,
    (item) =>
      work(item).catch((error: unknown) => {
        failures += 1;
        deps.log.warn({ orderKey: orderKey(item), err: error }, failure);
      }),
    { concurrency: CONCURRENCY },
  );
  return failures;
}

/** Decides an order once; a repeated key finds the stored decision (handler duty 6). */
function decide(order: ExecutionOrder, delays: SettleDelays): Execution {
  const plan = planFor(order, delays);
  const now = new Date();
  return {
    _id: order.idempotency_key,
    order,
    ack: paymentAck(order, plan.ack, plan.ack === 'REJECTED' ? plan.reason : undefined),
    settlement: plan.ack === 'ACCEPTED' ? plan.settlement : null,
    delayMs: plan.ack === 'ACCEPTED' && plan.settlement ? plan.delayMs : 0,
    status: 'NEW',
    settleAt: null,
    outcome: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Acks one pulled order with its decision, stored once (a repeated key finds the one stored first). */
async function handleOrder(deps: WorkerDeps, entry: PullOrder): Promise<void> {
  await takeAck(deps, await insertOnce(deps.executions, decide(entry.payload, deps.delays)));
}

/**
 * Acks with the stored decision; once the service took the ack, the settlement clock starts.
 * An ack refused for good (expired, unknown order) ends the execution; any other failure
 * throws and the ack is sent again in a later round (the same ack answers the same).
 */
async function takeAck(deps: WorkerDeps, execution: Execution): Promise<void> {
  try {
    await deps.pull.ack(execution.ack);
  } catch (error) {
    if (!(error instanceof ServiceCallError) || error.status === 429 || error.status >= 500) throw error;
    await finishExecution(
      deps.executions,
      execution._id,
      'NEW',
      error.status === 410 ? 'order expired before the ack' : `ack refused with HTTP ${error.status}`,
    );
    return;
  }
  if (execution.status !== 'NEW') return;
  if (execution.settlement) {
    await startWaiting(deps.executions, execution._id, new Date(Date.now() + execution.delayMs));
  } else {
    await finishExecution(
      deps.executions,
      execution._id,
      'NEW',
      execution.ack.status === 'REJECTED'
        ? `rejected: ${execution.ack.reason}`
        : 'awaiting a confirmation that never comes',
    );
  }
}

/**
 * Executions still NEW that were not pulled this round: their ack was taken by the service
 * but its answer was lost (a timeout, a crash before the next write), so the order is no
 * longer pending and would never come back. Acking them again moves them on.
 */
async function resumeUnfinished(deps: WorkerDeps, pulled: Set<string>): Promise<number> {
  const unfinished = await findUnacked(deps.executions, 50);
  return sideBySide(
    deps,
    unfinished.filter((candidate) => !pulled.has(candidate._id)),
    (execution) => execution._id,
    (execution) => takeAck(deps, execution),
    'ack not confirmed; tried again next round',
  );
}

/** Settlements pushed in one round at most. */
const SETTLEMENTS_PER_ROUND = 50;

/**
 * Pushes due settlements (200 and 409, already received, both mean delivered). Says how many
 * failed, and when the next settlement is due: now when some are still due (failed, or past
 * this round's share), null when none waits. One read gives both.
 */
async function settleDue(deps: WorkerDeps): Promise<{ failures: number; next: Date | null }> {
  const now = new Date();
  const waiting = await soonestSettlements(deps.executions, SETTLEMENTS_PER_ROUND + 1);
  const isDue = (execution: Execution) => execution.settleAt !== null && execution.settleAt <= now;
  const due = waiting.filter(isDue).slice(0, SETTLEMENTS_PER_ROUND);
  const failures = await sideBySide(
    deps,
    due,
    (execution) => execution._id,
    (execution) => pushOne(deps, execution),
    'settlement push failed; will retry',
  );
  const later = waiting.find((execution) => !isDue(execution));
  const moreDue = failures > 0 || waiting.filter(isDue).length > due.length;
  return { failures, next: moreDue ? now : (later?.settleAt ?? null) };
}

async function pushOne(deps: WorkerDeps, execution: Execution): Promise<void> {
  const { order } = execution;
  const result = await pushSettlement({
    baseUrl: deps.baseUrl,
    providerId: deps.credentials.providerId,
    signingSecret: deps.credentials.signingSecret,
    event: settlementOf(order, execution.settlement!),
  });
  if (result.status === 200 || result.status === 409) {
    await finishExecution(deps.executions, execution._id, 'WAITING', `settled ${execution.settlement}`);
  } else if (result.status >= 400 && result.status < 500 && result.status !== 429) {
    deps.log.error(
      { orderKey: order.idempotency_key, status: result.status, body: result.body },
      'settlement refused',
    );
    await finishExecution(
      deps.executions,
      execution._id,
      'WAITING',
      `settlement refused with HTTP ${result.status}`,
    );
  } else {
    // 429 or 5xx: counted as the round's failure (logged by sideBySide), pushed again later.
    throw new Error(`settlement push answered HTTP ${result.status}`);
  }
}

/** What a round leaves for the next: when the next settlement is due (null: none waits). */
export type Round = { fetched: number; failures: number; nextSettlementAt: Date | null };

/**
 * One round: fetch and ack pending orders, ack again those whose answer was lost, then push
 * what is due. With `waitMs`, the fetch is a long poll that waits for an order at most that
 * long, and never past the next settlement's time, which the previous round said
 * (`nextSettlementAt`; unknown, as on the first round, waits for nothing). Says how many
 * orders it fetched, how many of its acks and pushes failed (each left for a later round),
 * and when the next settlement is due.
 */
export async function workOnce(
  deps: WorkerDeps,
  { waitMs = 0, nextSettlementAt }: { waitMs?: number; nextSettlementAt?: Date | null } = {},
): Promise<Round> {
  const untilSettlement =
    nextSettlementAt === undefined ? 0 : nextSettlementAt ? nextSettlementAt.getTime() - Date.now() : waitMs;
  const wait = Math.max(0, Math.floor(Math.min(waitMs, untilSettlement)));
  const pending = await deps.pull.pending(50, { waitMs: wait });
  const pulled = new Set(pending.map((entry) => entry.idempotency_key));
  const acking =
    (await sideBySide(
      deps,
      pending,
      (entry) => entry.idempotency_key,
      (entry) => handleOrder(deps, entry),
      'order not acked; it stays pending',
    )) + (await resumeUnfinished(deps, pulled));
  const settling = await settleDue(deps);
  return { fetched: pending.length, failures: acking + settling.failures, nextSettlementAt: settling.next };
}
