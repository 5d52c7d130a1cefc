import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '@mmp/platform';
import { createTestSystem, freePort } from '@mmp/platform/testing';
import { gatewayService } from '../src/service.js';
import { ADMIN_TOKEN } from './fixtures/gateway.js';

/** The one test about the network: the gateway's listener lives and dies with the service. */
const system = createTestSystem('gwlisten');
afterAll(() => system.cleanup());

describe('the HTTP listener', () => {
  it('answers on GATEWAY_PORT, counts in readiness, and closes when the service stops', async () => {
    const port = await freePort();
    const running = await startService(gatewayService, {
      ...system.env,
      ADMIN_TOKEN,
      GATEWAY_PORT: String(port),
    });
    const url = `http://127.0.0.1:${port}`;
    const reference = await fetch(`${url}/v1/openapi.json`);
    expect(reference.status).toBe(200);
    expect(reference.headers.get('x-request-id')).toMatch(/^req_/);
    const ready = await fetch(`http://127.0.0.1:${running.opsPort}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks.http).toBe('ok');

    await running.stop();
    await expect(fetch(`${url}/v1/openapi.json`)).rejects.toThrow();
  });
});
