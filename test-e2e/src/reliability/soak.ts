import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { EVENTS_STREAM } from '@mmp/protocol';
import { CHAOS_SERVICES, startChaosSystem, unpublishedEvents, type ChaosSystem } from './chaos.js';

/**
 * Issue 17, item 4 (`pnpm soak`): every service as its own process, paid payments at 70 %
 * of the rate the whole path was just measured to sustain (see measureRate), webhooks and
 * settlements flowing, for SOAK_SECONDS (600). Per window (a minute, or a fifth of a shorter run) it prints the
 * p99 of a paid payment's create and pay, each service's RSS, the outbox backlog and the
 * JetStream consumers' lag, then says whether p99 stayed flat, memory stable and lag under 1 s.
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const MEASURE_SECONDS = Number(process.env.SOAK_MEASURE_SECONDS ?? 15);
const SHARE = Number(process.env.SOAK_SHARE ?? 0.7);
const WINDOW_MS = Math.min(60, Math.max(5, SECONDS / 5)) * 1000;
const PAYING_PHONE = '+237690000001';

function rssMiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
    return line ? Number(line[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

const p99 = (values: number[]) => {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
};

/** One paid payment as a merchant and a shopper make it; its latency is create + pay. */
async function paidPayment(chaos: ChaosSystem, n: number): Promise<{ ok: boolean; ms: number }> {
  const started = Date.now();
  const base = chaos.system.baseUrl;
  try {
    const created = await fetch(`${base}/v1/payments`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${chaos.project.testSecretKey}`,
        'content-type': 'application/json',
        'idempotency-key': `soak-${n}-${started}`,
      },
      body: JSON.stringify({ amount: 1000 + (n % 5000), reference: `soak-${n}` }),
      signal: AbortSignal.timeout(10_000),
    });
    if (created.status !== 201) return { ok: false, ms: Date.now() - started };
    const { paymentUrl } = (await created.json()) as { paymentUrl: string };
    const session = new URL(paymentUrl).pathname.split('/').pop()!;
    const paid = await fetch(`${base}/v1/checkout/sessions/${session}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paymentMethod: 'ORANGE_MONEY', phone: PAYING_PHONE }),
      signal: AbortSignal.timeout(10_000),
    });
    await paid.arrayBuffer();
    return { ok: paid.status < 300, ms: Date.now() - started };
  } catch {
    return { ok: false, ms: Date.now() - started };
  }
}

/**
 * Paid payments per second the whole path sustains: 8 merchants back to back for
 * MEASURE_SECONDS, over the time until every consumer has taken what they made. Answered
 * pays alone overstate it: the API answers while settlements and webhooks queue behind.
 */
async function measureRate(chaos: ChaosSystem): Promise<number> {
  const until = Date.now() + MEASURE_SECONDS * 1000;
  let done = 0;
  let n = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (Date.now() < until) if ((await paidPayment(chaos, -1 - n++)).ok) done++;
    }),
  );
  const drainedBy = Date.now() + 300_000;
  while (Date.now() < drainedBy && (await consumerLagSeconds(chaos)) > 0) await sleep(250);
  return done / ((Date.now() - started) / 1000);
}

/** NATS subject matching: `*` one token, `>` the rest. */
function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const t = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return t.length > i;
    if (i >= t.length || (f[i] !== '*' && f[i] !== t[i])) return false;
  }
  return f.length === t.length;
}

/** Seconds the oldest event not yet taken by each durable consumer has waited; the worst. */
async function consumerLagSeconds(chaos: ChaosSystem): Promise<number> {
  const nc = await connect({ servers: chaos.nats.url });
  try {
    const jsm = await jetstreamManager(nc);
    const stream = chaos.system.system.naming.stream(EVENTS_STREAM);
    let worst = 0;
    for await (const consumer of jsm.consumers.list(stream)) {
      if (consumer.num_pending === 0 && consumer.num_ack_pending === 0) continue;
      const filters = consumer.config.filter_subjects ?? [consumer.config.filter_subject ?? '>'];
      // The first message past the ack floor that this consumer takes (a filtered consumer
      // skips the others), looked at within a bounded window.
      for (let seq = consumer.ack_floor.stream_seq + 1, seen = 0; seen < 500; seq++, seen++) {
        const message = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
        if (!message) break;
        if (!filters.some((filter) => subjectMatches(filter, message.subject))) continue;
        worst = Math.max(worst, (Date.now() - message.time.getTime()) / 1000);
        break;
      }
    }
    return worst;
  } finally {
    await nc.close();
  }
}

type Window = {
  at: number;
  requests: number;
  failed: number;
  p99Ms: number;
  rssMiB: Record<string, number>;
  outbox: number;
  lagS: number;
};

async function main() {
  console.log(`soak: starting every service as its own process on a private nats-server…`);
  const chaos = await startChaosSystem();
  try {
    const rate = await measureRate(chaos);
    const target = rate * SHARE;
    console.log(
      `soak: measured ${rate.toFixed(1)} paid payments/s (${MEASURE_SECONDS} s of load, until every consumer caught up); holding ${target.toFixed(1)}/s (${SHARE * 100} %) for ${SECONDS} s`,
    );
    const windows: Window[] = [];
    let current: number[] = [];
    let failed = 0;
    let inFlight = 0;
    let n = 0;
    const started = Date.now();
    const end = started + SECONDS * 1000;
    const pending: Promise<void>[] = [];
    let lastSample = started;
    let outboxWorst = 0;
    let lagWorst = 0;
    // A sampler apart from the load: outbox and lag every 5 s, the worst of the window kept.
    const sampler = (async () => {
      while (Date.now() < end) {
        await sleep(5000);
        outboxWorst = Math.max(outboxWorst, await unpublishedEvents(chaos.system).catch(() => -1));
        lagWorst = Math.max(lagWorst, await consumerLagSeconds(chaos).catch(() => -1));
      }
    })();
    // Open loop: arrivals on a fixed schedule, whatever the answers take, as merchants' traffic comes.
    while (Date.now() < end) {
      const due = started + (n / target) * 1000;
      if (due > Date.now()) await sleep(due - Date.now());
      const index = n++;
      inFlight++;
      pending.push(
        paidPayment(chaos, index).then(({ ok, ms }) => {
          inFlight--;
          current.push(ms);
          if (!ok) failed++;
        }),
      );
      if (Date.now() - lastSample >= WINDOW_MS || Date.now() >= end) {
        lastSample = Date.now();
        const rss = Object.fromEntries(
          CHAOS_SERVICES.map((name) => [name, Math.round(rssMiB(chaos.children.get(name)!.pid))]),
        );
        windows.push({
          at: Math.round((lastSample - started) / 1000),
          requests: current.length,
          failed,
          p99Ms: p99(current),
          rssMiB: rss,
          outbox: outboxWorst,
          lagS: lagWorst,
        });
        const w = windows.at(-1)!;
        console.log(
          `  ${String(w.at).padStart(4)} s  paid ${w.requests}  failed ${w.failed}  p99 ${w.p99Ms} ms  in flight ${inFlight}  outbox ≤${w.outbox}  lag ≤${w.lagS.toFixed(2)} s  RSS ${Object.values(rss).reduce((a, b) => a + b, 0)} MiB`,
        );
        current = [];
        failed = 0;
        outboxWorst = 0;
        lagWorst = 0;
        pending.splice(0, pending.length, ...pending.slice(-1000));
      }
    }
    await Promise.all(pending);
    await sampler;
    report(windows, rate, target);
  } finally {
    await chaos.stop();
  }
}

function report(windows: Window[], rate: number, target: number) {
  const head = [
    'window',
    'paid',
    'failed',
    'p99 ms',
    'outbox ≤',
    'lag ≤ s',
    ...CHAOS_SERVICES.map((s) => `${s} MiB`),
  ];
  const rows = windows.map((w) => [
    `${w.at} s`,
    String(w.requests),
    String(w.failed),
    String(w.p99Ms),
    String(w.outbox),
    w.lagS.toFixed(2),
    ...CHAOS_SERVICES.map((s) => String(w.rssMiB[s])),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(`\nSoak: ${target.toFixed(1)} paid payments/s (70 % of a measured ${rate.toFixed(1)}/s)`);
  console.log(
    [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n'),
  );
  // Flat: the last window's p99 within 1.5× the first's (or 50 ms); stable: each service's
  // RSS grew less than 20 % (or 20 MiB) from the second window (after warm-up) to the last.
  const first = windows[0];
  const last = windows.at(-1);
  if (!first || !last) return console.log('soak: too short for a verdict');
  const flat = last.p99Ms <= Math.max(first.p99Ms * 1.5, first.p99Ms + 50);
  const warm = windows[1] ?? first;
  const grew = CHAOS_SERVICES.filter(
    (s) => last.rssMiB[s]! - warm.rssMiB[s]! > Math.max(20, warm.rssMiB[s]! * 0.2),
  );
  const lag = Math.max(...windows.map((w) => w.lagS));
  const failures = windows.reduce((sum, w) => sum + w.failed, 0);
  console.log(
    `p99 ${flat ? 'flat' : 'GREW'} (${first.p99Ms} → ${last.p99Ms} ms); memory ${grew.length ? `GREW in ${grew.join(', ')}` : 'stable'}; worst consumer lag ${lag.toFixed(2)} s (${lag < 1 ? 'under' : 'OVER'} 1 s); ${failures} failed paid payments`,
  );
  process.exitCode = flat && !grew.length && lag < 1 && failures === 0 ? 0 : 1;
}

await main();
