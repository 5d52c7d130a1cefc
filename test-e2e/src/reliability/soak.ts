import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { EVENTS_STREAM } from '@mmp/protocol';
import { CHAOS_SERVICES, unpublishedEvents, type ChaosSystem } from './chaos.js';

/**
 * Issue 17, item 4: paid payments arriving on a fixed schedule (open loop), with webhooks
 * and settlements flowing, every service as its own process. Per window it records the p99
 * of a paid payment's create and pay, each service's RSS, the outbox backlog and the
 * JetStream consumers' lag; the verdict says whether p99 stayed flat, memory stable and lag
 * under 1 s. `pnpm soak` (soak-main.ts) holds 70 % of the measured rate for 10 minutes;
 * soak.test.ts holds a small fixed rate for half a minute inside `pnpm test`.
 */
/**
 * Shoppers as they come: a thousand Orange Money numbers of Cameroon outside the sandbox's
 * test numbers, each paid after the sandbox's delay (SOAK_ENV sets it short). One number
 * paying every payment would make one customer of tens of thousands of payments, whose
 * profile customers derives from its whole history on every event.
 */
const payerPhone = (n: number) => `+2376900${10_000 + (Math.abs(n) % 1000)}`;

/** What the soak's system runs with: the sandbox settles other numbers after 200 ms. */
export const SOAK_ENV = { SANDBOX_DELAY_MS: '200' };

function rssMiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
    return line ? Number(line[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The service's JS heap in use, from its ops server's metrics; NaN when it does not answer. */
async function heapMiB(opsPort: number | undefined): Promise<number> {
  if (!opsPort) return Number.NaN;
  try {
    const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    const value = text.match(/^nodejs_heap_size_used_bytes\{[^}]*\} (\S+)$/m);
    return value ? Number(value[1]) / 2 ** 20 : Number.NaN;
  } catch {
    return Number.NaN;
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
      body: JSON.stringify({ paymentMethod: 'ORANGE_MONEY', phone: payerPhone(n) }),
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
 * `seconds`, over the time until every consumer has taken what they made. Answered
 * pays alone overstate it: the API answers while settlements and webhooks queue behind.
 */
export async function measureRate(chaos: ChaosSystem, seconds: number): Promise<number> {
  const until = Date.now() + seconds * 1000;
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
export async function consumerLagSeconds(chaos: ChaosSystem): Promise<number> {
  return (await worstConsumerLag(chaos)).seconds;
}

/** The durable consumer furthest behind the stream, and by how many seconds. */
async function worstConsumerLag(chaos: ChaosSystem): Promise<{ seconds: number; consumer: string }> {
  const nc = await connect({ servers: chaos.nats.url });
  try {
    const jsm = await jetstreamManager(nc);
    const stream = chaos.system.system.naming.stream(EVENTS_STREAM);
    let worst = { seconds: 0, consumer: '' };
    for await (const consumer of jsm.consumers.list(stream)) {
      if (consumer.num_pending === 0 && consumer.num_ack_pending === 0) continue;
      const filters = consumer.config.filter_subjects ?? [consumer.config.filter_subject ?? '>'];
      // The first message past the ack floor that this consumer takes (a filtered consumer
      // skips the others), looked at within a bounded window.
      for (let seq = consumer.ack_floor.stream_seq + 1, seen = 0; seen < 500; seq++, seen++) {
        const message = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
        if (!message) break;
        if (!filters.some((filter) => subjectMatches(filter, message.subject))) continue;
        const seconds = (Date.now() - message.time.getTime()) / 1000;
        // Shown without the run's naming prefix (`e2e_<run>_payments-lifecycle`).
        if (seconds > worst.seconds) worst = { seconds, consumer: consumer.name.replace(/^.*_/, '') };
        break;
      }
    }
    return worst;
  } finally {
    await nc.close();
  }
}

export type Window = {
  at: number;
  requests: number;
  failed: number;
  p99Ms: number;
  rssMiB: Record<string, number>;
  /**
   * Each service's smallest JS heap in use over the window, sampled every few seconds: close
   * to what survives a collection, so it grows with a leak and not with garbage.
   */
  heapMiB: Record<string, number>;
  outbox: number;
  lagS: number;
  /** The consumer furthest behind when the lag was worst. */
  lagging: string;
};

/**
 * Paid payments at `rate` per second for `seconds`, whatever the answers take, as merchants'
 * traffic comes; a window of figures every `windowMs`. Resolves once every payment answered.
 */
export async function holdLoad(
  chaos: ChaosSystem,
  options: {
    rate: number;
    seconds: number;
    windowMs: number;
    onWindow?: (w: Window, inFlight: number) => void;
  },
): Promise<Window[]> {
  const { rate, seconds, windowMs } = options;
  const windows: Window[] = [];
  // Each payment counts in the window it was sent in, so a slow answer after the last
  // window still weighs on that window's p99.
  const answers: { ms: number[]; failed: number }[] = [{ ms: [], failed: 0 }];
  let inFlight = 0;
  let n = 0;
  const started = Date.now();
  const end = started + seconds * 1000;
  let lastSample = started;
  let outboxWorst = 0;
  let lagWorst = { seconds: 0, consumer: '' };
  let heapLeast: Record<string, number> = {};
  const pending: Promise<void>[] = [];
  // A sampler apart from the load: outbox and lag every 5 s, the worst of the window kept.
  const sampler = (async () => {
    while (Date.now() < end) {
      await sleep(Math.min(5000, windowMs / 2));
      outboxWorst = Math.max(outboxWorst, await unpublishedEvents(chaos.system).catch(() => -1));
      const lag = await worstConsumerLag(chaos).catch(() => ({ seconds: -1, consumer: '?' }));
      if (lag.seconds > lagWorst.seconds) lagWorst = lag;
      for (const name of CHAOS_SERVICES) {
        const heap = await heapMiB(chaos.opsPorts.get(name));
        if (!Number.isNaN(heap)) heapLeast[name] = Math.min(heapLeast[name] ?? Infinity, heap);
      }
    }
  })();
  const figures = (window: Window, index: number) => {
    const { ms, failed } = answers[index]!;
    return { ...window, requests: ms.length, failed, p99Ms: p99(ms) };
  };
  while (Date.now() < end) {
    const due = started + (n / rate) * 1000;
    if (due > Date.now()) await sleep(due - Date.now());
    const index = n++;
    const answered = answers.at(-1)!;
    inFlight++;
    pending.push(
      paidPayment(chaos, index).then(({ ok, ms }) => {
        inFlight--;
        answered.ms.push(ms);
        if (!ok) answered.failed++;
      }),
    );
    if (Date.now() - lastSample >= windowMs || Date.now() >= end) {
      lastSample = Date.now();
      const rss = Object.fromEntries(
        CHAOS_SERVICES.map((name) => [name, Math.round(rssMiB(chaos.children.get(name)!.pid))]),
      );
      const at = Math.round((lastSample - started) / 1000);
      windows.push({
        at,
        requests: 0,
        failed: 0,
        p99Ms: 0,
        rssMiB: rss,
        heapMiB: Object.fromEntries(CHAOS_SERVICES.map((name) => [name, Math.round(heapLeast[name] ?? NaN)])),
        outbox: outboxWorst,
        lagS: lagWorst.seconds,
        lagging: lagWorst.consumer,
      });
      options.onWindow?.(figures(windows.at(-1)!, windows.length - 1), inFlight);
      answers.push({ ms: [], failed: 0 });
      outboxWorst = 0;
      lagWorst = { seconds: 0, consumer: '' };
      heapLeast = {};
    }
  }
  await Promise.all(pending);
  await sampler;
  return windows.map(figures);
}

/** How long after the load every consumer had taken every event, or null if not within `limitMs`. */
export async function catchUpMs(chaos: ChaosSystem, limitMs: number): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if ((await consumerLagSeconds(chaos)) === 0 && (await unpublishedEvents(chaos.system)) === 0)
      return Date.now() - started;
    await sleep(250);
  }
  return null;
}

/** The windows as a Markdown table, as the README quotes it. */
export function formatSoakTable(windows: Window[]): string {
  const head = [
    'window',
    'paid',
    'failed',
    'p99 ms',
    'outbox ≤',
    'lag ≤ s',
    'furthest behind',
    ...CHAOS_SERVICES.map((s) => `${s} MiB RSS / heap`),
  ];
  const rows = windows.map((w) => [
    `${w.at} s`,
    String(w.requests),
    String(w.failed),
    String(w.p99Ms),
    String(w.outbox),
    w.lagS.toFixed(2),
    w.lagging || '-',
    ...CHAOS_SERVICES.map((s) => `${w.rssMiB[s]} / ${w.heapMiB[s]}`),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export type SoakVerdict = {
  flat: boolean;
  firstP99Ms: number;
  lastP99Ms: number;
  grew: string[];
  worstLagS: number;
  failures: number;
  held: boolean;
  line: string;
};

/**
 * Flat: the last window's p99 within 1.5× the first's (or 50 ms).
 * Stable: no service's JS heap (its least in use over a window) grew by more than 25 % (or
 * 10 MiB) from the second window (after warm-up) to the last, and no service's RSS ended
 * more than 10 % (or 10 MiB) above its peak from the second window to four before the end.
 * A leak keeps growing to the end; the native memory a process takes for its store's page
 * cache and its allocator's arenas as data arrives grows in the first minutes and then stays
 * (README, "Reliability"), and what a process hands back and takes again returns to that peak.
 * Lag: every consumer within 1 s of the stream in every window; no paid payment failed.
 */
export function soakVerdict(windows: Window[]): SoakVerdict {
  const first = windows[0];
  const last = windows.at(-1);
  if (!first || !last) throw new Error('soak: too short for a verdict');
  const flat = last.p99Ms <= Math.max(first.p99Ms * 1.5, first.p99Ms + 50);
  const warm = windows[1] ?? first;
  // From the second window (the first holds start-up's garbage) to four before the end; a
  // service whose RSS could not be read there is not judged by it.
  const earlier = windows.length > 4 ? windows.slice(1, -3) : [warm];
  const peakRss = (s: string) => {
    const read = earlier.flatMap((w) => (w.rssMiB[s] === undefined ? [] : [w.rssMiB[s]]));
    return read.length ? Math.max(...read) : undefined;
  };
  const grewBy = (from: number | undefined, to: number | undefined, share: number, floorMiB: number) =>
    from !== undefined && to !== undefined && to - from > Math.max(floorMiB, from * share);
  const grew = CHAOS_SERVICES.filter(
    (s) => grewBy(warm.heapMiB[s], last.heapMiB[s], 0.25, 10) || grewBy(peakRss(s), last.rssMiB[s], 0.1, 10),
  );
  const worstLagS = Math.max(...windows.map((w) => w.lagS));
  const failures = windows.reduce((sum, w) => sum + w.failed, 0);
  return {
    flat,
    firstP99Ms: first.p99Ms,
    lastP99Ms: last.p99Ms,
    grew,
    worstLagS,
    failures,
    held: flat && !grew.length && worstLagS < 1 && failures === 0,
    line: `p99 ${flat ? 'flat' : 'GREW'} (${first.p99Ms} → ${last.p99Ms} ms); memory ${grew.length ? `GREW in ${grew.join(', ')}` : 'stable'}; worst consumer lag ${worstLagS.toFixed(2)} s (${worstLagS < 1 ? 'under' : 'OVER'} 1 s); ${failures} failed paid payments`,
  };
}
