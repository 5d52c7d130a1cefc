import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundHttp, outboundUrlRefusal, type Resolve } from './outbound.js';

let server: Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    hits += 1;
    if (request.url === '/big') {
      response.end('x'.repeat(200_000));
      return;
    }
    if (request.url === '/silent') return;
    if (request.url === '/redirect') {
      response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
      return;
    }
    response.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** A resolver that answers from a table, as the outside DNS must never be asked in a test. */
function resolver(table: Record<string, string[]>): Resolve {
  return async (hostname) =>
    (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

describe('which URLs may be called', () => {
  it.each([
    ['http://example.com/hook', 'not https'],
    ['https://user:pw@example.com/', 'credentials in the URL'],
    ['not a url', 'not a URL'],
    ['https://127.0.0.1/', 'private address'],
    ['https://[::1]:8443/', 'private address'],
    ['https://10.1.2.3/', 'private address'],
    ['https://169.254.169.254/latest/meta-data', 'private address'],
    ['https://2130706433/', 'private address'],
    ['https://0x7f000001/', 'private address'],
    ['https://[::ffff:7f00:1]/', 'private address'],
    ['https://[::a00:1]/', 'private address'],
    ['https://[64:ff9b::a00:1]/', 'private address'],
    ['https://[2002:a00:1::1]/', 'private address'],
    ['https://localhost/', 'private address'],
  ])('refuses %s (%s)', (url, reason) => {
    expect(outboundUrlRefusal(url, { allowLoopback: false })).toBe(reason);
  });

  it('opens loopback only, over http too, with the development switch', () => {
    const dev = { allowLoopback: true };
    expect(outboundUrlRefusal('http://127.0.0.1:8080/hook', dev)).toBeNull();
    expect(outboundUrlRefusal('https://[::1]/hook', dev)).toBeNull();
    expect(outboundUrlRefusal('http://localhost:3000/', dev)).toBeNull();
    expect(outboundUrlRefusal('https://10.0.0.1/', dev)).toBe('private address');
    expect(outboundUrlRefusal('https://169.254.169.254/', dev)).toBe('private address');
    expect(outboundUrlRefusal('http://example.com/', dev)).toBe('not https');
  });

  it('accepts a public https URL', () => {
    expect(outboundUrlRefusal('https://merchant.example.com/webhooks', { allowLoopback: false })).toBeNull();
  });
});

describe('calls, judged where they connect', () => {
  it('refuses a name that resolves to a private address, without connecting', async () => {
    const http = createOutboundHttp({
      allowLoopback: false,
      resolve: resolver({ 'internal.example': ['10.0.0.5'] }),
    });
    const before = hits;
    const exchange = await http.send({ url: 'https://internal.example/hook', timeoutMs: 2000 });
    expect(exchange).toMatchObject({ kind: 'failed', reason: 'private address' });
    expect(hits).toBe(before);
    await http.close();
  });

  it('refuses a name that resolved public when checked and private when dialled (rebinding)', async () => {
    let lookups = 0;
    const rebinding: Resolve = async () => {
      lookups += 1;
      return [{ address: lookups === 1 ? '203.0.113.10' : '127.0.0.1', family: 4 }];
    };
    // The first answer is what a check at save time would have seen.
    expect(await rebinding('shop.example')).toEqual([{ address: '203.0.113.10', family: 4 }]);
    const http = createOutboundHttp({ allowLoopback: false, resolve: rebinding });
    const before = hits;
    const exchange = await http.send({ url: `https://shop.example:${port}/hook`, timeoutMs: 2000 });
    expect(exchange).toMatchObject({ kind: 'failed', reason: 'private address' });
    expect(hits).toBe(before);
    await http.close();
  });

  it('refuses a name with one private address among public ones', async () => {
    const http = createOutboundHttp({
      allowLoopback: true,
      resolve: resolver({ 'mixed.example': ['203.0.113.10', '192.168.1.1'] }),
    });
    expect(await http.send({ url: 'https://mixed.example/', timeoutMs: 2000 })).toMatchObject({
      kind: 'failed',
      reason: 'private address',
    });
    await http.close();
  });

  it('reaches a loopback receiver with the development switch, and caps what it reads', async () => {
    const http = createOutboundHttp({ allowLoopback: true, resolve: resolver({ localhost: ['127.0.0.1'] }) });
    const ok = await http.send({ url: `http://localhost:${port}/`, method: 'GET', timeoutMs: 2000 });
    expect(ok).toMatchObject({ kind: 'response', status: 200, truncated: false });
    const big = await http.send({ url: `http://127.0.0.1:${port}/big`, timeoutMs: 2000, maxBodyBytes: 1024 });
    expect(big).toMatchObject({ kind: 'response', status: 200, truncated: true });
    expect(big.kind === 'response' && big.body.length).toBe(1024);
    await http.close();
  });

  it('never follows a redirect', async () => {
    const http = createOutboundHttp({ allowLoopback: true });
    expect(await http.send({ url: `http://127.0.0.1:${port}/redirect`, timeoutMs: 2000 })).toMatchObject({
      kind: 'response',
      status: 302,
    });
    await http.close();
  });

  it('ends a silent exchange at its deadline as a timeout', async () => {
    const http = createOutboundHttp({ allowLoopback: true });
    expect(await http.send({ url: `http://127.0.0.1:${port}/silent`, timeoutMs: 300 })).toMatchObject({
      kind: 'timeout',
    });
    await http.close();
  });

  it('reports a refused connection by its class only', async () => {
    const http = createOutboundHttp({ allowLoopback: true });
    expect(await http.send({ url: 'http://127.0.0.1:1/', timeoutMs: 2000 })).toMatchObject({
      kind: 'failed',
      reason: 'connection refused',
    });
    await http.close();
  });
});
