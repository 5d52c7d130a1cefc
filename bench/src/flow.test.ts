import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from './config.js';
import { runFlow } from './flow.js';

const CREATE_MS = 5;
const PAY_MS = 10;
const SETTLE_MS = 30;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/**
 * The three calls the flow makes, answered after fixed delays, and the merchant's webhook
 * sent SETTLE_MS after a pay is answered: each stage's time is known. The pay of the
 * payment whose reference ends in `failing` answers 503.
 */
async function startStandIn(failing: string): Promise<{ baseUrl: string; close(): Promise<void> }> {
  let receiverUrl = '';
  let created = 0;
  const tokens = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      const reply = (status: number, json: object) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      if (request.url === '/v1/webhook-endpoints') {
        receiverUrl = body.url as string;
        return reply(200, { id: 'we_1' });
      }
      if (request.url === '/v1/payments') {
        await sleep(CREATE_MS);
        created += 1;
        const session = `cs_${created}`;
        tokens.set(session, `pay_${created}`);
        if ((body.reference as string).endsWith(`-${failing}`)) tokens.set(session, 'failing');
        return reply(201, { token: `pay_${created}`, paymentUrl: `${baseUrl}/pay/${session}` });
      }
      const session = request.url?.match(/^\/v1\/checkout\/sessions\/([^/]+)\/pay$/)?.[1];
      const token = session && tokens.get(session);
      if (!token) return reply(404, { error: { code: 'route_not_found' } });
      await sleep(PAY_MS);
      if (token === 'failing') return reply(503, { error: { code: 'service_unavailable' } });
      reply(200, { status: 'PROCESSING' });
      await sleep(SETTLE_MS);
      await fetch(receiverUrl, {
        method: 'POST',
        body: JSON.stringify({ type: 'transaction.completed', data: { token } }),
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('the full flow', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it('times each stage of every finished flow, and counts a flow whose call failed as failed', async () => {
    const standIn = await startStandIn('3');
    close = standIn.close;
    const config = readConfig({ BENCH_FLOW_RATE: '20', BENCH_FLOW_S: '1', BENCH_FLOW_GRACE_S: '5' });

    const flow = await runFlow(standIn.baseUrl, 'sk_test_x', config, {});

    expect(flow).toMatchObject({ started: 20, finished: 19, failedCalls: 1, unfinished: 0 });
    expect(flow.firstFailure).toContain('503');
    const stages = flow.stagesMs!;
    expect(stages.create.p50).toBeGreaterThanOrEqual(CREATE_MS);
    expect(stages.pay.p50).toBeGreaterThanOrEqual(PAY_MS);
    expect(stages.afterPay.p50).toBeGreaterThanOrEqual(SETTLE_MS);
    // The stages split each flow's latency: their means add up to its mean (each rounded).
    expect(stages.create.mean + stages.pay.mean + stages.afterPay.mean).toBeCloseTo(flow.latencyMs.mean, 0);
    expect(flow.cores).toBe(availableParallelism());
  });
});
