import { setTimeout as sleep } from 'node:timers/promises';
import { SERVICE_NAMES, type ServiceName } from '@mmp/protocol';
import { eventually, freePort, startNatsServer, type PrivateNatsServer } from '@mmp/platform/testing';
import { startSystem, type ChildService, type ProjectKeys, type RunningSystem } from '../support/system.js';
import { startMerchantReceiver } from '../crash/merchant-receiver.js';
import { sendWithRetries, type Attempt } from './merchant-client.js';

/** Started one after the other once the rest is up: the sandbox provider registers its rail through the gateway. */
const STARTED_LAST: ServiceName[] = ['gateway', 'sandbox-provider'];

/** Every service, in start order. */
export const CHAOS_SERVICES: ServiceName[] = [
  ...SERVICE_NAMES.filter((name) => !STARTED_LAST.includes(name)),
  ...STARTED_LAST,
];

export type Fault =
  | { kind: 'kill'; service: ServiceName }
  | { kind: 'stop'; service: ServiceName; ms: number }
  | { kind: 'nats-restart'; downMs: number };

export const faultName = (fault: Fault) =>
  fault.kind === 'kill'
    ? `SIGKILL ${fault.service}`
    : fault.kind === 'stop'
      ? `SIGSTOP ${fault.service} ${fault.ms / 1000} s`
      : `NATS restart (${fault.downMs / 1000} s down)`;

/** What one fault did to its burst; every count but requests, retries and recovery must be 0. */
export type FaultReport = {
  fault: string;
  payments: number;
  requests: number;
  retries: number;
  /** From the fault to the first 2xx after the first failed answer (0: nobody noticed). */
  recoveryMs: number;
  /** A key that never got its payment, or a paid payment without its webhook. */
  lost: number;
  /** A second payment for a key, order for a payment, applied settlement for an order, or event id for a payment's completion. */
  doubled: number;
  /** A paid payment not COMPLETED or FAILED in time, or an event left unpublished in an outbox. */
  stuck: number;
  /** Retries answered 409 invalid_state although the first attempt took effect (issue 17, fault 3). */
  retryConflicts: number;
  /** Every non-2xx status seen, with how often. */
  statuses: Record<string, number>;
  /** What the counts are made of, for a failing run's message. */
  details: string[];
};

/** Where each service keeps aggregates with an outbox (`kit.outbox([...])`). */
const OUTBOX_COLLECTIONS: Partial<Record<ServiceName, string[]>> = {
  payments: ['payments'],
  'provider-router': ['orders', 'settlements'],
  'provider-delivery': ['orders'],
  gateway: ['projects'],
  'certification-runner': ['certification_runs', 'certification_cases'],
};

/** The sandbox number that pays at once (docs/sandbox.md). */
const PAYING_PHONE = '+237690000001';

type Paid = {
  key: string;
  reference: string;
  amount: number;
  token?: string;
  id?: string;
  created: Attempt[];
  paid: Attempt[];
  payAnswered: boolean;
};

/** The list shows no reference: each payment of a run has an amount of its own instead. */
type ListedPayment = { id: string; token: string; amount: number; status: string };

/**
 * The whole system as separate processes on a nats-server of its own, for faults: each
 * service can be killed, stopped and restarted, and NATS restarted, while merchants pay.
 */
export async function startChaosSystem(env: Record<string, string> = {}) {
  const nats: PrivateNatsServer = await startNatsServer();
  let system: RunningSystem | undefined;
  try {
    system = await startSystem({
      external: CHAOS_SERVICES,
      env: {
        NATS_URL: nats.url,
        LOG_LEVEL: 'info',
        // A webhook whose sender died is sent again once its claim lapses (twice the timeout
        // plus 10 s): the receiver answers at once, so a short timeout keeps the wait short.
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_POLL_INTERVAL_MS: '200',
        WEBHOOK_RETRY_SCHEDULE_MS: '500,1000,2000,4000,8000',
        ...env,
      },
    });
  } catch (error) {
    await nats.stop();
    throw error;
  }
  const running = system;
  const children = new Map<ServiceName, ChildService>();
  /** Each child's ops port, where the soak reads its JS heap (`/metrics`). */
  const opsPorts = new Map<ServiceName, number>();
  const spawn = async (name: ServiceName) => {
    const opsPort = await freePort();
    const child = running.spawnService(name, { OPS_PORT: String(opsPort) });
    children.set(name, child);
    opsPorts.set(name, opsPort);
    await child.waitReady(90_000);
  };
  await Promise.all(CHAOS_SERVICES.filter((name) => !STARTED_LAST.includes(name)).map(spawn));
  for (const name of STARTED_LAST) await spawn(name);
  await eventually(async () => (await fetch(`${running.baseUrl}/v1/health`)).ok, 60_000, 250);
  const project = await running.createProject('Chaos Shop');
  const receiver = await startMerchantReceiver();
  const endpoint = await fetch(`${running.baseUrl}/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${project.testSecretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url('/hooks'), enabledEvents: ['*'] }),
  });
  if (endpoint.status !== 201)
    throw new Error(`webhook endpoint: ${endpoint.status} ${await endpoint.text()}`);

  return {
    system: running,
    nats,
    project,
    receiver,
    children,
    opsPorts,
    /** Runs a burst of paid payments and `fault` once a third of them are paid, then checks. */
    runFault: (fault: Fault, payments: number, label: string) =>
      runFault({ system: running, nats, project, receiver, children, spawn }, fault, payments, label),
    async stop() {
      // A run stopped mid-SIGSTOP leaves no frozen process behind.
      for (const child of children.values()) {
        try {
          process.kill(child.pid, 'SIGCONT');
        } catch {
          // already gone
        }
      }
      await receiver.close();
      await running.stop();
      await nats.stop();
    },
  };
}
export type ChaosSystem = Awaited<ReturnType<typeof startChaosSystem>>;

type Harness = {
  system: RunningSystem;
  nats: PrivateNatsServer;
  project: ProjectKeys;
  receiver: Awaited<ReturnType<typeof startMerchantReceiver>>;
  children: Map<ServiceName, ChildService>;
  spawn(name: ServiceName): Promise<void>;
};

async function inject(harness: Harness, fault: Fault) {
  if (fault.kind === 'nats-restart') return harness.nats.restart({ downMs: fault.downMs });
  const child = harness.children.get(fault.service)!;
  if (fault.kind === 'stop') {
    process.kill(child.pid, 'SIGSTOP');
    await sleep(fault.ms);
    process.kill(child.pid, 'SIGCONT');
    return;
  }
  await child.kill('SIGKILL');
  await harness.spawn(fault.service);
}

/** Amounts unique over the run, so the list (which shows no reference) tells payments apart. */
let lastAmount = 1000;
const nextAmount = () => ++lastAmount;

async function runFault(harness: Harness, fault: Fault, count: number, label: string): Promise<FaultReport> {
  const { system, project } = harness;
  const auth = { authorization: `Bearer ${project.testSecretKey}`, 'content-type': 'application/json' };
  const items: Paid[] = Array.from({ length: count }, (_, i) => ({
    key: `${label}-${i}-${Date.now()}`,
    reference: `${label}-${i}`,
    amount: nextAmount(),
    created: [],
    paid: [],
    payAnswered: false,
  }));
  let faultAt = 0;
  let injected: Promise<void> | undefined;
  let answered = 0;
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      const body = JSON.stringify({ amount: item.amount, reference: item.reference });
      const create = await sendWithRetries(`${system.baseUrl}/v1/payments`, {
        method: 'POST',
        headers: { ...auth, 'idempotency-key': item.key },
        body,
      });
      item.created = create.attempts;
      if (create.status === 201 || create.status === 200) {
        item.token = String(create.body.token);
        item.id = String(create.body.id);
        const session = new URL(String(create.body.paymentUrl)).pathname.split('/').pop()!;
        const pay = await sendWithRetries(`${system.baseUrl}/v1/checkout/sessions/${session}/pay`, {
          method: 'POST',
          // The hosted page keys its pay too, so a retry after a hidden success gets that success.
          headers: { 'content-type': 'application/json', 'idempotency-key': `${item.key}-pay` },
          body: JSON.stringify({ paymentMethod: 'ORANGE_MONEY', phone: PAYING_PHONE }),
        });
        item.paid = pay.attempts;
        item.payAnswered = pay.status < 300 || (pay.status === 409 && pay.attempts.length > 1);
      }
      if (!injected && ++answered >= Math.max(1, Math.floor(count / 3))) {
        faultAt = Date.now();
        injected = inject(harness, fault);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, count) }, worker));
  await injected;
  const probe = await probeCreate(harness);
  return check(harness, fault, items, faultAt, probe);
}

/**
 * A create after the burst, retried until it answers 2xx: when every answer after the
 * fault's first failure was a failure, the system is back only when this one gets through.
 */
async function probeCreate(harness: Harness): Promise<Attempt[]> {
  const probe = await sendWithRetries(`${harness.system.baseUrl}/v1/payments`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${harness.project.testSecretKey}`,
      'content-type': 'application/json',
      'idempotency-key': `probe-${Date.now()}-${Math.random()}`,
    },
    body: JSON.stringify({ amount: nextAmount() }),
  });
  return probe.attempts;
}

async function listPayments(baseUrl: string, key: string): Promise<ListedPayment[]> {
  const all: ListedPayment[] = [];
  let after: string | undefined;
  for (;;) {
    const query = `limit=100${after ? `&starting_after=${after}` : ''}`;
    const response = await fetch(`${baseUrl}/v1/payments?${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (!response.ok) throw new Error(`GET /v1/payments: ${response.status}`);
    const page = (await response.json()) as { data: ListedPayment[]; has_more: boolean };
    all.push(...page.data);
    if (!page.has_more || page.data.length === 0) return all;
    // The cursor is a payment id.
    after = page.data[page.data.length - 1]!.id;
  }
}

/** Events written with their state change and not yet published, in every service's store. */
export async function unpublishedEvents(system: RunningSystem): Promise<number> {
  let pending = 0;
  for (const [service, names] of Object.entries(OUTBOX_COLLECTIONS)) {
    const store = await system.openStore(service as ServiceName);
    try {
      for (const name of names) pending += await store.collection(name).count({ _outboxPending: { $gt: 0 } });
    } finally {
      await store.close();
    }
  }
  return pending;
}

async function check(
  harness: Harness,
  fault: Fault,
  items: Paid[],
  faultAt: number,
  probe: Attempt[],
): Promise<FaultReport> {
  const { system, project, receiver } = harness;
  const details: string[] = [];
  const attempts = items.flatMap((item) => [...item.created, ...item.paid]);
  const statuses: Record<string, number> = {};
  for (const attempt of attempts)
    if (attempt.status >= 300 || attempt.status === 0) {
      const name =
        attempt.status === 0 ? 'no answer' : `${attempt.status}${attempt.code ? ` ${attempt.code}` : ''}`;
      statuses[name] = (statuses[name] ?? 0) + 1;
    }
  const sorted = [...attempts, ...probe].sort((a, b) => a.endedAt - b.endedAt);
  const firstFailure = sorted.find((a) => a.endedAt >= faultAt && (a.status === 0 || a.status >= 300));
  const recovered =
    firstFailure && sorted.find((a) => a.endedAt > firstFailure.endedAt && a.status >= 200 && a.status < 300);
  const recoveryMs = !firstFailure ? 0 : recovered ? recovered.endedAt - faultAt : Number.NaN;

  // A pay retried after a failure whose final answer was 409 invalid_state: the first answer lost.
  const conflicted = (item: Paid) => item.paid.length > 1 && item.paid.at(-1)?.status === 409;
  const retryConflicts = items.filter(conflicted).length;

  let lost = 0;
  let doubled = 0;
  let stuck = 0;
  const unanswered = items.filter((item) => !item.token);
  if (unanswered.length) details.push(`${unanswered.length} keys never got their payment`);
  lost += unanswered.length;

  // Every paid payment reaches a final status; the list shows one payment per key.
  const amounts = new Set(items.map((item) => item.amount));
  const mine = (payments: ListedPayment[]) => payments.filter((p) => amounts.has(p.amount));
  let listed: ListedPayment[] = [];
  const paid = items.filter((item) => item.token && item.payAnswered);
  try {
    await eventually(
      async () => {
        listed = mine(await listPayments(system.baseUrl, project.testSecretKey));
        const status = new Map(listed.map((p) => [p.token, p.status]));
        return paid.every((item) => ['COMPLETED', 'FAILED'].includes(status.get(item.token!) ?? ''));
      },
      120_000,
      1000,
    );
  } catch {
    // counted below as stuck
  }
  const byAmount = new Map<number, ListedPayment[]>();
  for (const payment of listed)
    byAmount.set(payment.amount, [...(byAmount.get(payment.amount) ?? []), payment]);
  for (const item of items) {
    const found = byAmount.get(item.amount) ?? [];
    if (found.length > 1) {
      doubled++;
      details.push(`${item.reference}: ${found.length} payments`);
    }
    if (item.token && !found.some((p) => p.token === item.token)) {
      lost++;
      details.push(`${item.reference}: answered ${item.token}, not in the list`);
    }
  }
  const status = new Map(listed.map((p) => [p.token, p.status]));
  const notFinal = paid.filter((item) => !['COMPLETED', 'FAILED'].includes(status.get(item.token!) ?? ''));
  if (notFinal.length)
    details.push(
      `${notFinal.length} paid payments not final: ${notFinal.map((i) => status.get(i.token!)).join(',')}`,
    );
  stuck += notFinal.length;

  // One webhook per event id at the endpoint, and none missing for a completed payment.
  const completed = paid.filter((item) => status.get(item.token!) === 'COMPLETED');
  try {
    await eventually(
      async () =>
        completed.every((item) =>
          receiver.deliveries.some(
            (d) => d.token === item.token && d.type === 'transaction.completed' && d.outcome === 'answered',
          ),
        ),
      60_000,
      500,
    );
  } catch {
    // counted below as lost
  }
  await sleep(1000);
  const tokens = new Set(items.map((item) => item.token));
  // At least once, with a stable id: a delivery the merchant answered but the killed sender
  // had not recorded is sent again with the same id, which the merchant deduplicates. A
  // second event id for one payment's completion is a doubled webhook.
  const answeredPerEvent = new Map<string, number>();
  const completionIds = new Map<string, Set<string>>();
  for (const d of receiver.deliveries) {
    if (!tokens.has(d.token) || d.outcome !== 'answered') continue;
    answeredPerEvent.set(d.eventId, (answeredPerEvent.get(d.eventId) ?? 0) + 1);
    if (d.type === 'transaction.completed')
      completionIds.set(d.token, (completionIds.get(d.token) ?? new Set()).add(d.eventId));
  }
  const redelivered = [...answeredPerEvent.values()].filter((n) => n > 1).length;
  if (redelivered) details.push(`${redelivered} webhook events sent again with the same id (at least once)`);
  const twice = [...completionIds.values()].filter((ids) => ids.size > 1).length;
  if (twice) {
    doubled += twice;
    details.push(`${twice} payments whose completion reached the endpoint under several event ids`);
  }
  const missing = completed.filter(
    (item) =>
      !receiver.deliveries.some(
        (d) => d.token === item.token && d.type === 'transaction.completed' && d.outcome === 'answered',
      ),
  ).length;
  if (missing) {
    lost += missing;
    details.push(`${missing} completed payments without their webhook`);
  }

  // One order per payment and at most one applied settlement per order, in provider-router's store.
  const ids = items.flatMap((item) => (item.id ? [item.id] : []));
  const router = await system.openStore('provider-router');
  try {
    const orders = await router.collection<{ _id: string; paymentId: string }>('orders').find({
      paymentId: { $in: ids },
    });
    const perPayment = new Map<string, number>();
    for (const order of orders) perPayment.set(order.paymentId, (perPayment.get(order.paymentId) ?? 0) + 1);
    const extraOrders = [...perPayment.values()].filter((n) => n > 1).length;
    if (extraOrders) {
      doubled += extraOrders;
      details.push(`${extraOrders} payments with several orders`);
    }
    const applied = await router
      .collection<{ _id: string; outcomeOf?: string }>('settlements')
      .find({ outcomeOf: { $in: orders.map((o) => o._id) } });
    const perOrder = new Map<string, number>();
    for (const s of applied) perOrder.set(s.outcomeOf!, (perOrder.get(s.outcomeOf!) ?? 0) + 1);
    const extraSettlements = [...perOrder.values()].filter((n) => n > 1).length;
    if (extraSettlements) {
      doubled += extraSettlements;
      details.push(`${extraSettlements} orders settled more than once`);
    }
    // A completed payment was decided by a settlement: none applied is a settlement lost.
    const completedIds = new Set(completed.map((item) => item.id));
    const unsettled = orders.filter((o) => completedIds.has(o.paymentId) && !perOrder.has(o._id)).length;
    if (unsettled) {
      lost += unsettled;
      details.push(`${unsettled} completed payments whose order has no applied settlement`);
    }
  } finally {
    await router.close();
  }

  let pending = 0;
  try {
    await eventually(async () => (pending = await unpublishedEvents(system)) === 0, 30_000, 500);
  } catch {
    details.push(`${pending} events left unpublished in outboxes`);
    stuck += pending;
  }

  return {
    fault: faultName(fault),
    payments: items.length,
    requests: attempts.length,
    retries: attempts.length - items.length - items.filter((item) => item.paid.length).length,
    recoveryMs,
    lost,
    doubled,
    stuck,
    retryConflicts,
    statuses,
    details,
  };
}

/** The customer projection as merchants read it, then again after an admin rebuild from the stream. */
export async function customersEqualRebuild(chaos: ChaosSystem): Promise<{ equal: boolean; diff: string }> {
  const { system, project } = chaos;
  // The profiles and the totals (spend, counts) merchants read.
  const read = async () => {
    const pages = [];
    for (const path of ['customers?per_page=100', 'customers/stats']) {
      const response = await fetch(`${system.baseUrl}/v1/projects/${project.id}/${path}`, {
        headers: { authorization: `Bearer ${project.testSecretKey}` },
      });
      pages.push(`${response.status} ${JSON.stringify(await response.json())}`);
    }
    return pages.join('\n');
  };
  // Projections are eventual: the live consumer first catches up with the stream.
  await sleep(3000);
  const before = await read();
  await system.admin('POST', '/v1/admin/customers/rebuild');
  const after = await read();
  return { equal: before === after, diff: before === after ? '' : `before ${before}\nafter  ${after}` };
}

/**
 * The merchant's balance as the ledger keeps it live, against one rebuilt from the event
 * stream: payments compares the two and names every account that differs.
 */
export async function balanceEqualsRebuild(
  chaos: ChaosSystem,
): Promise<{ matches: boolean; mismatches: unknown }> {
  await sleep(3000);
  return chaos.system.admin<{ matches: boolean; mismatches: unknown }>('POST', '/v1/admin/balance/rebuild');
}

export function formatTable(reports: FaultReport[]): string {
  const head = [
    'fault',
    'payments',
    'requests',
    'retries',
    '2xx again',
    'lost',
    'doubled',
    'stuck',
    '409 on retry',
  ];
  const rows = reports.map((r) => [
    r.fault,
    String(r.payments),
    String(r.requests),
    String(r.retries),
    Number.isNaN(r.recoveryMs) ? 'never' : `${(r.recoveryMs / 1000).toFixed(1)} s`,
    String(r.lost),
    String(r.doubled),
    String(r.stuck),
    String(r.retryConflicts),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const lines = [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
  const notes = reports.flatMap((r) => [
    ...(Object.keys(r.statuses).length
      ? [
          `${r.fault}: failed answers ${Object.entries(r.statuses)
            .map(([s, n]) => `${s} ×${n}`)
            .join(', ')}`,
        ]
      : []),
    ...r.details.map((d) => `${r.fault}: ${d}`),
  ]);
  return [...lines, ...notes].join('\n');
}
