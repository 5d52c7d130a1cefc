import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSecretsInLogs, startEdgeGateway, type EdgeGateway } from './edge-harness.js';

let edge: EdgeGateway;
let gw: EdgeGateway['gw'];
let shop: EdgeGateway['shop'];

beforeAll(async () => {
  edge = await startEdgeGateway('gwadmin');
  ({ gw, shop } = edge);
});

afterAll(async () => {
  await gw?.stop();
});

describe('admin', () => {
  it('creates a project with a sandbox webhook endpoint and returns its secret once', async () => {
    const response = await gw.admin('POST', '/v1/admin/projects', {
      name: 'Hooked',
      webhookUrl: 'https://shop.example/hooks',
    });
    expect(response.status).toBe(201);
    expect(response.json.keys).toHaveLength(4);
    expect(response.json.webhookEndpoint).toMatchObject({
      id: 'we_1',
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(response.json.webhookEndpoint.actor).toMatchObject({
      kind: 'merchant',
      projectId: response.json.id,
      livemode: false,
      keyId: 'admin',
    });
    const listed = await gw.admin('GET', `/v1/admin/projects/${response.json.id}/keys`);
    expect(listed.json.data).toHaveLength(4);
    expect(JSON.stringify(listed.json)).not.toMatch(/svc_(test|live)_(sk|pk)_[A-Za-z0-9]{8,}/);
  });

  it('acts for a project on its webhook endpoints in the chosen environment', async () => {
    const live = await gw.admin('GET', `/v1/admin/projects/${shop.id}/webhook-endpoints?livemode=true`);
    expect(live.status).toBe(200);
    expect(live.json.actor).toMatchObject({
      kind: 'merchant',
      projectId: shop.id,
      livemode: true,
      keyId: 'admin',
    });
    expect(live.json.query.livemode).toBeUndefined();
    const sandbox = await gw.admin('GET', `/v1/admin/projects/${shop.id}/webhook-endpoints`);
    expect(sandbox.json.actor.livemode).toBe(false);
    const unknown = await gw.admin(
      'GET',
      '/v1/admin/projects/00000000-0000-4000-8000-000000000000/webhook-endpoints',
    );
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('resource_not_found');
  });

  it('validates admin input with one 422 entry per field', async () => {
    const response = await gw.admin('POST', `/v1/admin/projects/${shop.id}/keys`, {
      kind: 'root',
      livemode: 'yes',
    });
    expect(response.status).toBe(422);
    expect(response.json.error.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'kind',
      'livemode',
    ]);
  });
});

describe('logs', () => {
  it('never contain a key or a secret', () => {
    expectNoSecretsInLogs(edge);
  });
});
