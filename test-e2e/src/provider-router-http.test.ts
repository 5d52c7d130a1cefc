import { afterAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startService, type RunningService } from '@mmp/platform';
import { createTestSystem, freePort } from '@mmp/platform/testing';
import { hexHmac } from '@mmp/protocol';
import { gatewayService } from '@mmp/gateway';
import { providerRouterService } from '@mmp/provider-router';
import { api } from './support/http.js';
import { SAMPLE_MAPPING } from './support/fixtures.js';

/** Provider portal, settlement webhook and provider admin routes over real HTTP: gateway + provider-router. */
const system = createTestSystem('prhttp');
const adminToken = `adm_${randomBytes(16).toString('hex')}`;
const port = await freePort();
const env = { ...system.env, ADMIN_TOKEN: adminToken, GATEWAY_PORT: String(port) };
const router = (await startService(providerRouterService, env)) as unknown as RunningService;
const gateway = (await startService(gatewayService, env)) as unknown as RunningService;
const baseUrl = `http://127.0.0.1:${port}`;
const admin = api(baseUrl, adminToken);

afterAll(async () => {
  await gateway.stop();
  await router.stop();
  await system.cleanup();
});

const created = await admin<{ id: string; apiKey: string; signingSecret: string }>(
  'POST',
  '/v1/admin/providers',
  { name: 'HTTP Co' },
);
const provider = api(baseUrl, created.body.apiKey);

async function postSettlement(raw: string, signature: string, providerId = created.body.id) {
  const response = await fetch(`${baseUrl}/v1/provider/webhooks/${providerId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signature },
    body: raw,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('provider routes over HTTP', () => {
  it('creates, tests and activates a pull rail with the provider key', async () => {
    expect(created.status).toBe(201);
    const rail = await provider<{ id: string; status: string }>('POST', '/v1/provider/rails', {
      transport: 'pull',
      networks: ['MTN_MOMO'],
      countries: ['CM'],
      currencies: ['XAF'],
      environment: 'sandbox',
    });
    expect(rail).toMatchObject({ status: 201, body: { status: 'PENDING' } });
    const activateEarly = await provider('POST', `/v1/provider/rails/${rail.body.id}/activate`);
    expect(activateEarly).toMatchObject({ status: 409, body: { error: { code: 'invalid_state' } } });
    expect((await provider('POST', `/v1/provider/rails/${rail.body.id}/test`)).body).toMatchObject({
      status: 'TESTED',
    });
    expect((await provider('POST', `/v1/provider/rails/${rail.body.id}/activate`)).body).toMatchObject({
      status: 'ACTIVE',
    });
    expect((await provider<{ data: unknown[] }>('GET', '/v1/provider/rails')).body.data).toHaveLength(1);
  });

  it('serves the protocol-v1 JSON Schema to providers only', async () => {
    const schema = await provider('GET', '/v1/provider/agent/assist/protocol-v1-schema');
    expect(schema).toMatchObject({
      status: 200,
      body: { $schema: 'https://json-schema.org/draft/2020-12/schema' },
    });
    expect((await api(baseUrl)('GET', '/v1/provider/agent/assist/protocol-v1-schema')).status).toBe(401);
  });

  it('verifies the settlement signature over the exact bytes received', async () => {
    const raw = `{ "protocol_version":"1",  "idempotency_key":"pexec_http0000000000000000", "transaction_ref":"T-1",
      "amount":"5000", "currency":"XAF", "status":"COMPLETED", "network":"MTN_MOMO", "settled_at":"2025-01-31T12:00:00Z" }`;
    expect(await postSettlement(raw, hexHmac(created.body.signingSecret, raw))).toMatchObject({
      status: 200,
      body: { received: true, matched: false },
    });
    expect(await postSettlement(raw, hexHmac(created.body.signingSecret, raw))).toMatchObject({
      status: 409,
      body: { error: { code: 'duplicate_event' } },
    });
    const reserialised = JSON.stringify(JSON.parse(raw));
    expect(await postSettlement(raw, hexHmac(created.body.signingSecret, reserialised))).toMatchObject({
      status: 403,
      body: { error: { code: 'signature_invalid' } },
    });
    expect(await postSettlement(raw, hexHmac(created.body.signingSecret, raw), 'prv_unknown')).toMatchObject({
      status: 403,
    });
  });

  it('answers 422 listing every invalid field in the envelope', async () => {
    const raw = JSON.stringify({ protocol_version: '1', amount: 5000, status: 'DONE', extra: true });
    const reply = await postSettlement(raw, hexHmac(created.body.signingSecret, raw));
    expect(reply.status).toBe(422);
    const fields =
      (reply.body as { error: { errors?: { field: string }[] } }).error.errors?.map((e) => e.field) ?? [];
    expect(fields.sort()).toEqual([
      'amount',
      'currency',
      'extra',
      'idempotency_key',
      'network',
      'settled_at',
      'status',
      'transaction_ref',
    ]);
  });

  it('lets the admin list providers, manage the mapping and read a reconciliation', async () => {
    const list = await admin<{ data: { id: string }[] }>('GET', '/v1/admin/providers');
    expect(list.body.data.map((p) => p.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.signingSecret);
    const rails = await admin<{ data: { status: string }[] }>(
      'GET',
      `/v1/admin/providers/${created.body.id}/rails`,
    );
    expect(rails.body.data).toMatchObject([{ status: 'ACTIVE' }]);
    const mapping = SAMPLE_MAPPING;
    expect((await admin('PUT', `/v1/admin/providers/${created.body.id}/mapping`, mapping)).status).toBe(200);
    expect((await admin('GET', `/v1/admin/providers/${created.body.id}/mapping`)).body).toMatchObject({
      mapping,
    });
    const date = new Date().toISOString().slice(0, 10);
    const report = await admin(
      'GET',
      `/v1/admin/reconciliation?providerId=${created.body.id}&date=${date}&livemode=false`,
    );
    expect(report).toMatchObject({ status: 200, body: { summary: { settledWithoutOrder: 1 } } });
  });
});
