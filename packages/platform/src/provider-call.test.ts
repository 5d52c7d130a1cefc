import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundHttp } from './outbound.js';
import { endpointFailureReason, postToProvider, providerAnswerJson } from './provider-call.js';

let server: Server;
let port: number;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.end(request.url === '/big' ? 'x'.repeat(100_000) : '{"type":"health.ack"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('postToProvider', () => {
  it('signs <timestamp>.<body> with the rail secret and names the event', async () => {
    const http = createOutboundHttp({ allowLoopback: true });
    const body = '{"type":"health.check","nonce":"abc"}';
    const exchange = await postToProvider(
      http,
      {
        endpoint: `http://127.0.0.1:${port}/`,
        secret: 'whsec_x',
        event: 'health.check',
        body,
        timeoutMs: 2000,
      },
      1_700_000_000_123,
    );
    await http.close();
    expect(exchange).toMatchObject({ kind: 'response', status: 200 });
    expect(exchange.kind === 'response' && providerAnswerJson(exchange)).toEqual({ type: 'health.ack' });
    const [call] = received;
    // Recomputed with node:crypto alone, as a provider's adapter does.
    const digest = createHmac('sha256', 'whsec_x').update(`1700000000.${body}`).digest('hex');
    expect(call).toEqual({
      body,
      headers: expect.objectContaining({
        'content-type': 'application/json',
        'x-service-timestamp': '1700000000',
        'x-service-signature': `t=1700000000,v1=${digest}`,
        'x-service-event': 'health.check',
      }),
    });
  });

  it('reads no answer past the cap as JSON', async () => {
    const http = createOutboundHttp({ allowLoopback: true });
    const exchange = await postToProvider(http, {
      endpoint: `http://127.0.0.1:${port}/big`,
      secret: 's',
      event: 'payment.execute',
      body: '{}',
      timeoutMs: 2000,
    });
    await http.close();
    expect(exchange).toMatchObject({ kind: 'response', truncated: true });
    expect(exchange.kind === 'response' && providerAnswerJson(exchange)).toBeUndefined();
  });

  it('refuses a loopback endpoint without the development switch, sending nothing', async () => {
    const http = createOutboundHttp({ allowLoopback: false });
    const before = received.length;
    const exchange = await postToProvider(http, {
      endpoint: `https://127.0.0.1:${port}/`,
      secret: 's',
      event: 'payment.execute',
      body: '{}',
      timeoutMs: 2000,
    });
    await http.close();
    expect(exchange).toMatchObject({ kind: 'failed', reason: 'private address' });
    expect(received.length).toBe(before);
    expect(endpointFailureReason('private address')).toBe('the endpoint must be a public address');
    expect(endpointFailureReason('connection refused')).toBe('unreachable: connection refused');
  });
});
