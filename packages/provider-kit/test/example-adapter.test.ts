import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExampleAdapter } from '../examples/webhook-adapter.js';

const railSecret = 'whsec_example0123456789abcdefghijklmn';
const signingSecret = 'sig_example';
const settlements: { url: string; signature: string; body: string }[] = [];
const logged: string[] = [];
/** What the stub of the service answers a pushed settlement. */
let answer = { status: 200, body: '{"received":true}' };
let gateway: Server;
let adapter: Awaited<ReturnType<typeof startExampleAdapter>>;

/** Signs like the service, independently of the kit. */
async function call(body: object, secret = railSecret) {
  const raw = JSON.stringify(body);
  const ts = Math.floor(Date.now() / 1000);
  const signature = `t=${ts},v1=${createHmac('sha256', secret).update(`${ts}.${raw}`).digest('hex')}`;
  const response = await request(adapter.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signature,
      'x-service-timestamp': String(ts),
    },
    body: raw,
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  gateway = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      settlements.push({ url: req.url ?? '', signature: String(req.headers['x-service-signature']), body });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const serviceUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/v1`;
  adapter = await startExampleAdapter({
    railSecret,
    providerId: 'prv_example',
    signingSecret,
    serviceUrl,
    executionDelayMs: 50,
    log: (line) => logged.push(line),
  });
});
afterAll(async () => {
  await adapter?.close();
  await new Promise<void>((resolve) => gateway.close(() => resolve()));
});

/** A payment.execute as provider-delivery sends it, its key and reference drawn from `name`. */
function paymentOrder(
  name: string,
  order: { amount: string; currency: string; network: string; country: string; msisdn: string },
) {
  const { msisdn, ...money } = order;
  return {
    protocol_version: '1',
    type: 'payment.execute',
    idempotency_key: `pexec_${name}`,
    ...money,
    payee: { msisdn },
    transaction_ref: `pay_${name}`,
    timestamp: Math.floor(Date.now() / 1000),
  };
}

describe('the example webhook adapter', () => {
  it('answers a health check, acks an order once, and pushes one signed settlement', async () => {
    expect(
      await call({
        protocol_version: '1',
        type: 'health.check',
        nonce: '00112233445566778899aabbccddeeff',
        timestamp: Math.floor(Date.now() / 1000),
      }),
    ).toEqual({
      status: 200,
      body: { type: 'health.ack', nonce: '00112233445566778899aabbccddeeff' },
    });
    const order = paymentOrder('example1', {
      amount: '2500',
      currency: 'XOF',
      network: 'WAVE',
      country: 'SN',
      msisdn: '+221771234567',
    });
    const ack = {
      status: 200,
      body: { type: 'payment.ack', idempotency_key: 'pexec_example1', status: 'ACCEPTED' },
    };
    expect(await call(order)).toEqual(ack);
    expect(await call(order)).toEqual(ack);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settlements).toHaveLength(1);
    const [settlement] = settlements;
    expect(settlement!.url).toBe('/v1/provider/webhooks/prv_example');
    expect(settlement!.signature).toBe(
      createHmac('sha256', signingSecret).update(settlement!.body).digest('hex'),
    );
    expect(JSON.parse(settlement!.body)).toMatchObject({
      idempotency_key: 'pexec_example1',
      status: 'COMPLETED',
      amount: '2500',
      currency: 'XOF',
    });
    expect(logged).toEqual([
      'health.check answered',
      'order pexec_example1: 2500 XOF WAVE ACCEPTED',
      'settlement pexec_example1: HTTP 200',
    ]);
  });

  it('logs why the service refused a settlement, from its error envelope', async () => {
    answer = {
      status: 403,
      body: JSON.stringify({ error: { code: 'signature_invalid', message: 'Invalid signature.' } }),
    };
    logged.length = 0;
    const order = paymentOrder('example2', {
      amount: '100',
      currency: 'XAF',
      network: 'MTN_MOMO',
      country: 'CM',
      msisdn: '+237670000001',
    });
    expect((await call(order)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(logged.at(-1)).toBe('settlement pexec_example2: HTTP 403: signature_invalid Invalid signature.');
  });

  it('refuses a call signed with another secret with 401, and says which secret to check', async () => {
    const check = { protocol_version: '1', type: 'health.check', nonce: '0'.repeat(32), timestamp: 1 };
    expect((await call(check, 'whsec_another0123456789abcdefghijklmn')).status).toBe(401);
    expect(logged.at(-1)).toBe(
      'refused a call with HTTP 401: signature mismatch (is RAIL_SECRET the whsec_ secret of the rail whose endpoint this is?)',
    );
  });

  it('refuses an unsigned call with 401', async () => {
    const response = await request(adapter.url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(401);
    await response.body.dump();
    expect(logged.at(-1)).toBe('refused a call with HTTP 401: signature malformed');
  });
});
