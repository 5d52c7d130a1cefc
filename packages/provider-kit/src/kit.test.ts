import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerHealthCheck,
  apiBase,
  createPullClient,
  createServiceCallHandler,
  paymentAck,
  pushSettlement,
  ServiceCallError,
  signSettlement,
  verifyServiceCall,
} from './index.js';

const secret = 'whsec_0123456789abcdefghijklmnopqrstuv';

/** Signs like the service does, written independently of @mmp/protocol. */
function sign(body: string, ts = Math.floor(Date.now() / 1000)) {
  return {
    'x-service-signature': `t=${ts},v1=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`,
  };
}

const order = {
  protocol_version: '1',
  type: 'payment.execute',
  idempotency_key: 'pexec_abc123',
  amount: '5000',
  currency: 'XAF',
  network: 'ORANGE_MONEY',
  country: 'CM',
  payee: { msisdn: '+237690000001' },
  transaction_ref: 'pay_123',
  timestamp: 1_700_000_000,
} as const;

const settlement = {
  protocol_version: '1',
  idempotency_key: 'stl_1',
  transaction_ref: 'pexec_abc123',
  amount: '5000',
  currency: 'XAF',
  status: 'COMPLETED',
  network: 'ORANGE_MONEY',
  settled_at: '2025-01-31T12:00:00Z',
} as const;

describe('verifyServiceCall', () => {
  const body = JSON.stringify(order);
  it('accepts the signature over the raw body, whatever the header casing', () => {
    const { 'x-service-signature': value } = sign(body);
    expect(verifyServiceCall({ rawBody: body, headers: { 'X-Service-Signature': value }, secret })).toEqual({
      ok: true,
    });
    expect(
      verifyServiceCall({ rawBody: Buffer.from(body), headers: { 'x-service-signature': value }, secret }),
    ).toEqual({ ok: true });
  });
  it('refuses re-serialised, stale, missing or foreign signatures', () => {
    const headers = sign(body);
    expect(
      verifyServiceCall({ rawBody: JSON.stringify(JSON.parse(body), null, 1), headers, secret }).ok,
    ).toBe(false);
    expect(verifyServiceCall({ rawBody: body, headers: sign(body, 1_000), secret })).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifyServiceCall({ rawBody: body, headers: {}, secret })).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(verifyServiceCall({ rawBody: body, headers, secret: `${secret}x` })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });
});

describe('acks and the handler', () => {
  it('builds acks that echo exactly', () => {
    expect(answerHealthCheck({ nonce: 'ab12' })).toEqual({ type: 'health.ack', nonce: 'ab12' });
    expect(paymentAck(order, 'ACCEPTED')).toEqual({
      type: 'payment.ack',
      idempotency_key: 'pexec_abc123',
      status: 'ACCEPTED',
    });
    expect(
      paymentAck({ type: 'payout.execute', idempotency_key: 'pexo_1' }, 'REJECTED', 'insufficient_balance'),
    ).toEqual({
      type: 'payout.ack',
      idempotency_key: 'pexo_1',
      status: 'REJECTED',
      reason: 'insufficient_balance',
    });
  });

  it('answers health checks and orders, and 401 on a bad signature', async () => {
    const seen: string[] = [];
    const handle = createServiceCallHandler({
      secret,
      onOrder: async (received) => {
        seen.push(received.idempotency_key);
        return { status: 'REJECTED', reason: 'insufficient_balance' };
      },
    });
    const check = JSON.stringify({
      protocol_version: '1',
      type: 'health.check',
      nonce: 'a1b2c3d4e5f60718',
      timestamp: 1_700_000_000,
    });
    expect(await handle(check, sign(check))).toEqual({
      status: 200,
      body: { type: 'health.ack', nonce: 'a1b2c3d4e5f60718' },
    });
    const body = JSON.stringify(order);
    expect((await handle(body, sign(body))).body).toEqual({
      type: 'payment.ack',
      idempotency_key: 'pexec_abc123',
      status: 'REJECTED',
      reason: 'insufficient_balance',
    });
    expect(seen).toEqual(['pexec_abc123']);
    expect((await handle(body, { 'x-service-signature': 't=1,v1=00' })).status).toBe(401);
    expect((await handle('{"type":"nope"}', sign('{"type":"nope"}'))).status).toBe(422);
  });
});

describe('over HTTP', () => {
  let server: Server;
  let baseUrl: string;
  const received: { url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  let answer: { status: number; body: unknown } = { status: 200, body: {} };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ url: req.url ?? '', headers: req.headers, body });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('pushes a settlement whose signature is over the exact bytes sent', async () => {
    answer = { status: 200, body: { received: true } };
    const result = await pushSettlement({
      baseUrl,
      providerId: 'prv_1',
      signingSecret: 'sig_secret',
      event: settlement,
    });
    expect(result).toEqual({ status: 200, body: { received: true } });
    const request = received.at(-1)!;
    expect(request.url).toBe('/v1/provider/webhooks/prv_1');
    expect(request.headers['x-service-signature']).toBe(
      createHmac('sha256', 'sig_secret').update(request.body).digest('hex'),
    );
    expect(signSettlement('sig_secret', settlement).body).toBe(request.body);
  });

  it('reaches the /v1 routes from a service URL given without its version segment', async () => {
    answer = { status: 200, body: { orders: [] } };
    const origin = baseUrl.replace(/\/v1$/, '');
    await pushSettlement({
      baseUrl: `${origin}/`,
      providerId: 'prv_1',
      signingSecret: 's',
      event: settlement,
    });
    expect(received.at(-1)!.url).toBe('/v1/provider/webhooks/prv_1');
    await createPullClient({ baseUrl: origin, apiKey: 'sk_test' }).pending();
    expect(received.at(-1)!.url).toBe('/v1/provider/orders?status=pending');
    expect(apiBase(`${baseUrl}/`)).toBe(baseUrl);
  });

  it('refuses to sign an invalid settlement', () => {
    expect(() => signSettlement('s', { ...settlement, amount: 5000 as unknown as string })).toThrow(/amount/);
  });

  it('pull client sends the key as Bearer and surfaces envelope errors', async () => {
    answer = { status: 200, body: { orders: [] } };
    const client = createPullClient({ baseUrl, apiKey: 'sk_test' });
    expect(await client.pending(10)).toEqual([]);
    expect(received.at(-1)).toMatchObject({
      url: '/v1/provider/orders?status=pending&limit=10',
      headers: { authorization: 'Bearer sk_test' },
    });
    expect(await client.pending(undefined, { waitMs: 5000 })).toEqual([]);
    expect(received.at(-1)!.url).toBe('/v1/provider/orders?status=pending&wait_ms=5000');
    answer = { status: 409, body: { error: { code: 'invalid_state', message: 'different ack' } } };
    const failure = await client.ack(paymentAck(order, 'ACCEPTED')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceCallError);
    expect(failure).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(JSON.parse(received.at(-1)!.body)).toEqual(paymentAck(order, 'ACCEPTED'));
  });
});
