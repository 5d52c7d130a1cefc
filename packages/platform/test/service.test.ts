import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { BaseEnv } from '../src/config.js';
import { createServiceClient } from '../src/rpc.js';
import { startService, type ServiceDefinition } from '../src/service.js';
import { createTestSystem, TEST_NATS_URL } from '../src/testing/index.js';

const system = createTestSystem('svc');
afterAll(() => system.cleanup());

let healthy = true;
const definition: ServiceDefinition<typeof BaseEnv> = {
  name: 'certification-runner',
  env: BaseEnv,
  async start() {
    return {
      operations: { hello: async (request) => ({ status: 200, body: { hello: request.body } }) },
      readiness: { dependency: async () => healthy },
    };
  },
};

describe('a service started by the kit', () => {
  it('answers ping and its operations, reports health, readiness and metrics, and stops cleanly', async () => {
    const running = await startService(definition, system.env);
    const ops = `http://127.0.0.1:${running.opsPort}`;
    const nc = await connect({ servers: TEST_NATS_URL });
    const client = createServiceClient({ nc, naming: system.naming, caller: 'test', defaultTimeoutMs: 1000 });
    try {
      expect((await client.call('certification-runner', 'ping', {})).body).toEqual({
        service: 'certification-runner',
        status: 'ok',
        store: 'embedded',
      });
      expect(await client.command('certification-runner', 'hello', 'world')).toEqual({ hello: 'world' });

      expect((await fetch(`${ops}/healthz`)).status).toBe(200);
      const ready = await fetch(`${ops}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        status: 'ready',
        checks: { nats: 'ok', store: 'ok', dependency: 'ok' },
      });
      healthy = false;
      const notReady = await fetch(`${ops}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toMatchObject({ status: 'not_ready', checks: { dependency: 'failing' } });

      const metrics = await (await fetch(`${ops}/metrics`)).text();
      expect(metrics).toContain('process_cpu_user_seconds_total{service="certification-runner"}');

      await running.stop();
      await expect(client.call('certification-runner', 'ping', {}, { timeoutMs: 300 })).rejects.toMatchObject(
        {
          code: 'service_unavailable',
        },
      );
      await expect(fetch(`${ops}/healthz`)).rejects.toThrow();
    } finally {
      await running.stop();
      await nc.close();
    }
  });

  it('refuses to start with bad configuration, naming each bad variable', async () => {
    await expect(
      startService(definition, { ...system.env, OPS_PORT: 'abc', NATS_PREFIX: 'Bad.Prefix' }),
    ).rejects.toThrow(/OPS_PORT[\s\S]*NATS_PREFIX|NATS_PREFIX[\s\S]*OPS_PORT/);
  });
});
