import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBus, createTestSystem, eventually } from '@mmp/platform/testing';
import { sandboxOperations } from '@mmp/protocol';
import { REGISTRATION_ANSWERS, serveProviderApi, startSandbox, type ProviderApi } from './provider-api.js';

/**
 * The gateway's public API as the sandbox registers through it, answering 503 until `up`:
 * the provider, its pull rail, its test and activation, then the pull of orders.
 */
let up = false;
const calls: string[] = [];
let api: ProviderApi;
const system = createTestSystem('sbxreg');

beforeAll(async () => {
  api = await serveProviderApi((request, response) => {
    calls.push(`${request.method} ${request.url}`);
    if (!up) return void response.writeHead(503).end('{}');
    const pulling = request.url?.startsWith('/v1/provider/orders');
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify(
        pulling ? { orders: [] } : (REGISTRATION_ANSWERS[request.url ?? ''] ?? { status: 'ACTIVE' }),
      ),
    );
  });
});
afterAll(async () => {
  await api.close();
  await system.cleanup();
});

describe('the sandbox registering itself', () => {
  it('retries until the gateway answers, then says so and pulls; it stops at once either way', async () => {
    const sandbox = await startSandbox(api, system.env, { SANDBOX_POLL_MS: '100' });
    const status = () =>
      createTestBus(sandbox.context.nc, sandbox.context.naming).request(sandboxOperations.status, {});
    try {
      await eventually(async () => calls.length > 0);
      expect(await status()).toEqual({ registered: false });
      up = true;
      await eventually(async () => (await status()).registered, 20_000);
      expect(await status()).toEqual({ registered: true, providerId: 'prv_1', railId: 'rail_1' });
      await eventually(async () => calls.some((call) => call.startsWith('GET /v1/provider/orders')));
    } finally {
      await sandbox.stop();
    }
  }, 30_000);
});
