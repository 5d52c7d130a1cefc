import { describe, expect, it } from 'vitest';
import { useEdgeGateway } from './fixtures/edge.js';

const edge = useEdgeGateway('gwfwd');

describe('forwarding', () => {
  it('carries the actor, the request id, the body and the chosen headers to the service', async () => {
    const response = await edge.gw.http('POST', '/v1/payments', {
      token: edge.shop.testSecret.key,
      body: { amount: 1000, currency: 'XAF' },
      headers: { 'x-request-id': 'merchant-trace-42', 'idempotency-key': 'idem-1', cookie: 'not=forwarded' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBe('merchant-trace-42');
    const call = edge.seen.find((s) => s.requestId === 'merchant-trace-42')!;
    expect(call.actor).toEqual({
      kind: 'merchant',
      projectId: edge.shop.id,
      livemode: false,
      scopes: edge.shop.testSecret.scopes,
      keyId: edge.shop.testSecret.id,
    });
    expect(call.request).toMatchObject({
      body: { amount: 1000, currency: 'XAF' },
      headers: { 'idempotency-key': 'idem-1' },
    });
    expect((call.request as { headers: Record<string, string> }).headers.cookie).toBeUndefined();
  });

  it('writes one access line per request: changes and failures at info, successful reads at debug', async () => {
    await edge.gw.http('POST', '/v1/payments', {
      token: edge.shop.testSecret.key,
      body: { amount: 1000 },
      headers: { 'x-request-id': 'access-write-1' },
    });
    await edge.gw.http('GET', '/v1/payments?search=%2B237690000001', {
      token: edge.shop.testSecret.key,
      headers: { 'x-request-id': 'access-read-1' },
    });
    const lines = edge.gw.logs
      .text()
      .split('\n')
      .filter((l) => l.includes('"request completed"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const write = lines.filter((l) => l.requestId === 'access-write-1');
    const read = lines.filter((l) => l.requestId === 'access-read-1');
    expect(write).toMatchObject([{ level: 30, method: 'POST', route: '/v1/payments', statusCode: 201 }]);
    expect(read).toMatchObject([{ level: 20, method: 'GET', path: '/v1/payments', statusCode: 200 }]);
    // The query (a payer's phone here) stays out of the access log.
    expect(JSON.stringify(read)).not.toContain('237690000001');
  });

  it('makes a req_ id when none (or an insane one) is given', async () => {
    const response = await edge.gw.http('GET', '/v1/payments', {
      token: edge.shop.testSecret.key,
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.json.requestId).toBe(response.headers.get('x-request-id'));
  });

  it('forwards the exact bytes of a signed payload', async () => {
    const raw = '{ "protocol_version":"1",\n  "amount": "5000.00" ,"x":"é"}';
    const response = await edge.gw.http('POST', '/v1/provider/webhooks/prov_1', {
      raw,
      headers: { 'content-type': 'application/json', 'x-service-signature': 'abc123' },
    });
    expect(response.status).toBe(200);
    expect(response.json.rawBody).toBe(raw);
    expect(response.json.headers['x-service-signature']).toBe('abc123');
    expect(response.json.actor).toEqual({ kind: 'public' });
  });

  it('forwards a malformed signed payload for its owner to judge', async () => {
    const response = await edge.gw.http('POST', '/v1/provider/webhooks/prov_1', {
      raw: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.json.rawBody).toBe('{not json');
  });

  it('passes a poisoned signed payload on as bytes only, for its owner to refuse', async () => {
    const raw = '{"__proto__": {"isAdmin": true}}';
    const response = await edge.gw.http('POST', '/v1/provider/webhooks/prov_1', {
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.json.rawBody).toBe(raw);
    expect(response.json.body).toBeUndefined();
  });

  it('authenticates providers by their sk_ key', async () => {
    const created = await edge.gw.admin('POST', '/v1/admin/providers', { name: 'Acme' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: 'prov_abc',
      name: 'Acme',
      apiKey: expect.stringMatching(/^sk_/),
      signingSecret: expect.any(String),
    });
    const rails = await edge.gw.http('GET', '/v1/provider/rails', { token: created.json.apiKey });
    expect(rails.json.actor).toEqual({ kind: 'provider', providerId: 'prov_abc' });
    const rolled = await edge.gw.admin('POST', '/v1/admin/providers/prov_abc/keys/roll');
    expect((await edge.gw.http('GET', '/v1/provider/rails', { token: created.json.apiKey })).status).toBe(
      401,
    );
    expect((await edge.gw.http('GET', '/v1/provider/rails', { token: rolled.json.apiKey })).status).toBe(200);
  });

  it('passes pages through with their content type', async () => {
    const response = await edge.gw.http('GET', '/pay/AbCd1234');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.text).toContain('<title>AbCd1234</title>');
  });
});
