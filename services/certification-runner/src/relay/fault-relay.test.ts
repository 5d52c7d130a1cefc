import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundHttp, openStore, type Store } from '@mmp/platform';
import { openRunsStore } from '../store/runs.js';
import { startFaultRelay, type FaultRelay } from './fault-relay.js';

const dir = mkdtempSync(join(tmpdir(), 'mmp-relay-'));
let store: Store;
let adapter: Server;
let adapterUrl: string;
let relay: FaultRelay;
const http = createOutboundHttp({ allowLoopback: true });

/** An adapter that acks every order with its key. */
beforeAll(async () => {
  adapter = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const key = (JSON.parse(body) as { idempotency_key: string }).idempotency_key;
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ type: 'payment.ack', idempotency_key: key, status: 'ACCEPTED' }));
    });
  });
  await new Promise<void>((resolve) => adapter.listen(0, '127.0.0.1', resolve));
  adapterUrl = `http://127.0.0.1:${(adapter.address() as AddressInfo).port}/`;
  store = await openStore({ dataDir: dir, service: 'certification-runner' });
  const db = await openRunsStore(store);
  relay = await startFaultRelay({
    routes: db.relayRoutes,
    http,
    port: 0,
    host: '127.0.0.1',
    timeoutMs: 2000,
  });
});

afterAll(async () => {
  await relay?.stop();
  await http.close();
  await new Promise<void>((resolve) => adapter.close(() => resolve()));
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const order = JSON.stringify({ type: 'payment.execute', idempotency_key: 'pexec_1' });
/** The caller gives up after `giveUpMs`: long enough for a loaded machine, short where a test waits for it. */
const post = (url: string, body = order, giveUpMs = 8000) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': 't=1,v1=abc' },
    body,
    signal: AbortSignal.timeout(giveUpMs),
  });

describe('the fault relay', () => {
  it('forwards to the adapter and rewrites the echoed key (case 9), recording both sides without the signature', async () => {
    const route = await relay.open('rewrite-echo', adapterUrl);
    const answer = await post(route.url);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { idempotency_key: string }).idempotency_key).toBe(
      'pexec_1_rewritten_by_relay',
    );
    const seen = await relay.close(route.token);
    expect(seen.answers).toEqual([
      { status: 200, body: { type: 'payment.ack', idempotency_key: 'pexec_1', status: 'ACCEPTED' } },
    ]);
    expect(seen.exchanges).toHaveLength(2);
    expect(JSON.stringify(seen.exchanges)).not.toContain('v1=abc');
    // Closed: a late attempt finds nothing.
    expect((await post(route.url)).status).toBe(404);
  });

  it('answers HTTP 500 after the adapter took the order (case 10)', async () => {
    const route = await relay.open('http-500', adapterUrl);
    expect((await post(route.url)).status).toBe(500);
    expect((await relay.close(route.token)).answers).toHaveLength(1);
  });

  it('withholds its answer (case 11) until the caller gives up', async () => {
    const route = await relay.open('withhold', adapterUrl);
    await expect(post(route.url, order, 1000)).rejects.toThrow();
    const seen = await relay.close(route.token);
    expect(seen.answers).toHaveLength(1);
    expect(seen.exchanges.map((message) => message.note)).toContain('answer withheld by the fault relay');
  }, 10_000);

  it('refuses unknown routes and oversized bodies', async () => {
    const route = await relay.open('rewrite-echo', adapterUrl);
    expect((await post(route.url.replace(/[^/]+$/, 'unknown'))).status).toBe(404);
    expect((await post(route.url, 'x'.repeat(70_000))).status).toBe(413);
    await relay.close(route.token);
  });
});
