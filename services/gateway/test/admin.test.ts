import { describe, expect, it } from 'vitest';
import { useEdgeGateway } from './fixtures/edge.js';

const edge = useEdgeGateway('gwadmin');

describe('admin', () => {
  it('creates a project with a sandbox webhook endpoint and returns its secret once', async () => {
    const response = await edge.gw.admin('POST', '/v1/admin/projects', {
      name: 'Hooked',
      webhookUrl: 'https://shop.example/hooks',
    });
    expect(response.status).toBe(201);
    expect(response.json.keys).toHaveLength(4);
    expect(response.json.webhookEndpoint).toMatchObject({
      url: 'https://shop.example/hooks',
      secret: expect.stringMatching(/^whsec_/),
    });
    const call = edge.seen.find((seen) => seen.operation === 'webhook-endpoints.create');
    expect(call?.actor).toMatchObject({
      kind: 'merchant',
      projectId: response.json.id,
      livemode: false,
      keyId: 'admin',
    });
    const listed = await edge.gw.admin('GET', `/v1/admin/projects/${response.json.id}/keys`);
    expect(listed.json.data).toHaveLength(4);
    expect(JSON.stringify(listed.json)).not.toMatch(/svc_(test|live)_(sk|pk)_[A-Za-z0-9]{8,}/);
  });

  it('acts for a project on its webhook endpoints in the chosen environment', async () => {
    const listCalls = () => edge.seen.filter((seen) => seen.operation === 'webhook-endpoints.list');
    const live = await edge.gw.admin(
      'GET',
      `/v1/admin/projects/${edge.shop.id}/webhook-endpoints?livemode=true`,
    );
    expect(live.status).toBe(200);
    const [liveCall] = listCalls().slice(-1);
    expect(liveCall?.actor).toMatchObject({
      kind: 'merchant',
      projectId: edge.shop.id,
      livemode: true,
      keyId: 'admin',
    });
    expect((liveCall?.request as { query: Record<string, string> }).query.livemode).toBeUndefined();
    await edge.gw.admin('GET', `/v1/admin/projects/${edge.shop.id}/webhook-endpoints`);
    expect(listCalls().slice(-1)[0]?.actor).toMatchObject({ livemode: false });
    const unknown = await edge.gw.admin(
      'GET',
      '/v1/admin/projects/00000000-0000-4000-8000-000000000000/webhook-endpoints',
    );
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('resource_not_found');
  });

  it('validates admin input with one 400 entry per field', async () => {
    const response = await edge.gw.admin('POST', `/v1/admin/projects/${edge.shop.id}/keys`, {
      kind: 'root',
      livemode: 'yes',
    });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code: 'validation_error', http_status: 400 });
    expect(response.json.error.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'kind',
      'livemode',
    ]);
  });
});
