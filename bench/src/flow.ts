import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import type { BenchConfig } from './config.js';
import { cpuBetween, settle, snapshotCpu } from './proc.js';
import { paymentBody } from './scenarios.js';
import { spreadOf, type Spread } from './stats.js';

/**
 * The full flow, as a merchant and a shopper live it: the merchant creates a payment, the
 * shopper pays it on the hosted page's route with the sandbox's success number, the system
 * routes the order, the sandbox provider pulls and acks it and posts a COMPLETED
 * settlement, the payment completes and the merchant's webhook receiver gets
 * `transaction.completed`. Flows start at a fixed rate whatever the answers (an open
 * loop), so a slow system shows as latency and unfinished flows, not as a lower rate.
 */

/** The sandbox completes this Orange Money number at once. */
const SUCCESS_NUMBER = '+237690000001';

/**
 * Where a finished flow's time went: each call of the merchant and of the shopper until it
 * answered, then everything the system does after the pay call (route the order, the
 * sandbox's pull and ack, the settlement, the payment's completion, the webhook). A slow
 * call points at the gateway and the service behind it; a slow rest at the asynchronous
 * path over the bus.
 */
export type FlowStages = { create: Spread; pay: Spread; afterPay: Spread };

export type FlowResult = {
  name: string;
  measures: string;
  ratePerSecond: number;
  started: number;
  finished: number;
  /** Flows whose create or pay call did not answer 2xx. */
  failedCalls: number;
  /** Flows whose webhook had not arrived when the grace time ran out. */
  unfinished: number;
  /** Flows started per second of the measured arrival window. */
  achievedRate: number;
  /** From the create call to the webhook's arrival, finished flows only. */
  latencyMs: Spread;
  stagesMs?: FlowStages;
  cpuMsPerFlow?: number;
  /** This machine's cores, which the flows' CPU at their rate is read against. */
  cores: number;
  cpuMsByProcess: Record<string, number>;
  sandboxPollMs: number;
  firstFailure?: string;
};

type Receiver = { url: string; arrived(token: string): Promise<number>; close(): Promise<void> };

/** The merchant's webhook receiver: answers 200 at once and notes when each payment completed. */
async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      response.writeHead(200).end();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        type?: string;
        data?: { token?: string };
      };
      const token = event.data?.token;
      if (event.type !== 'transaction.completed' || !token) return;
      arrivals.set(token, at);
      waiting.get(token)?.(at);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    arrived: (token) =>
      new Promise((resolve) => {
        const at = arrivals.get(token);
        if (at !== undefined) resolve(at);
        else waiting.set(token, resolve);
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // The system's webhook sender keeps its connections alive.
        server.closeAllConnections();
      }),
  };
}

async function post(url: string, body: string, key?: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
    body,
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(`POST ${new URL(url).pathname}: ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** One flow's two calls, a merchant's and a shopper's: the payment's token and when each answered. */
type StartedFlow = { token: string; createdAt: number; paidAt: number };

async function startFlow(baseUrl: string, secretKey: string, sequence: number): Promise<StartedFlow> {
  const payment = await post(`${baseUrl}/v1/payments`, paymentBody('flow', sequence), secretKey);
  const createdAt = performance.now();
  const session = new URL(payment.paymentUrl as string).pathname.split('/').pop() as string;
  await post(
    `${baseUrl}/v1/checkout/sessions/${session}/pay`,
    JSON.stringify({ paymentMethod: 'ORANGE_MONEY', phone: SUCCESS_NUMBER }),
  );
  return { token: payment.token as string, createdAt, paidAt: performance.now() };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the merchant's endpoint, proves one flow end to end, then runs the fixed-rate load. */
export async function runFlow(
  baseUrl: string,
  secretKey: string,
  config: BenchConfig,
  cpuPids: Record<string, number>,
): Promise<FlowResult> {
  const receiver = await startReceiver();
  try {
    await post(
      `${baseUrl}/v1/webhook-endpoints`,
      JSON.stringify({ url: receiver.url, enabledEvents: ['transaction.completed'] }),
      secretKey,
    );
    const probe = await startFlow(baseUrl, secretKey, 0);
    const probed = await Promise.race([receiver.arrived(probe.token), sleep(30_000).then(() => undefined)]);
    if (probed === undefined) throw new Error('a first flow did not complete within 30 s');

    const total = config.flowRate * config.flowSeconds;
    const interval = 1000 / config.flowRate;
    const latencies: number[] = [];
    const stages = { create: [] as number[], pay: [] as number[], afterPay: [] as number[] };
    let failed = 0;
    let firstFailure: string | undefined;
    const flows: Promise<void>[] = [];
    // From a quiet system (the scenarios before leave backlogs) until it is quiet again.
    await settle(cpuPids);
    const before = snapshotCpu(cpuPids);
    const t0 = performance.now();
    for (let i = 1; i <= total; i += 1) {
      const due = t0 + (i - 1) * interval;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const startedAt = performance.now();
      flows.push(
        startFlow(baseUrl, secretKey, i).then(
          async ({ token, createdAt, paidAt }) => {
            const arrivedAt = await receiver.arrived(token);
            latencies.push(arrivedAt - startedAt);
            stages.create.push(createdAt - startedAt);
            stages.pay.push(paidAt - createdAt);
            stages.afterPay.push(arrivedAt - paidAt);
          },
          (error: unknown) => {
            failed += 1;
            firstFailure ??= String(error);
          },
        ),
      );
    }
    const arrivalSeconds = (performance.now() - t0) / 1000;
    await Promise.race([Promise.all(flows), sleep(config.flowGraceSeconds * 1000)]);
    await settle(cpuPids);
    const cpu = cpuBetween(before, snapshotCpu(cpuPids));
    const cpuTotal = Object.values(cpu).reduce((sum, ms) => sum + ms, 0);
    const achievedRate = Math.round((total / arrivalSeconds) * 10) / 10;
    const cpuMsPerFlow = latencies.length > 0 ? cpuTotal / latencies.length : undefined;
    return {
      name: 'full flow: create, pay, order, ack, settle, COMPLETED, webhook',
      measures: `${config.flowRate} flows/s for ${config.flowSeconds} s; latency from the create call to the merchant's webhook, the sandbox long-polling its orders (wait_ms ${config.sandboxPollMs})`,
      ratePerSecond: config.flowRate,
      started: total,
      finished: latencies.length,
      failedCalls: failed,
      unfinished: total - latencies.length - failed,
      achievedRate,
      latencyMs: spreadOf(latencies),
      ...(cpuMsPerFlow !== undefined && {
        stagesMs: {
          create: spreadOf(stages.create),
          pay: spreadOf(stages.pay),
          afterPay: spreadOf(stages.afterPay),
        },
        cpuMsPerFlow: Math.round(cpuMsPerFlow * 100) / 100,
      }),
      cores: availableParallelism(),
      cpuMsByProcess: Object.fromEntries(Object.entries(cpu).map(([name, ms]) => [name, Math.round(ms)])),
      sandboxPollMs: config.sandboxPollMs,
      ...(firstFailure && { firstFailure }),
    };
  } finally {
    await receiver.close();
  }
}
