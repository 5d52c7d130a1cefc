import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { notices, peerNotice, pingOperation } from '@mmp/protocol';
import { operation } from '../src/rpc.js';
import { startService } from '../src/service.js';
import { createTestBus, createTestSystem, eventually, TEST_NATS_URL } from '../src/testing/index.js';
import { helloOperation, slowOperation, testService } from './test-contracts.js';

const system = createTestSystem('svc');
afterAll(() => system.cleanup());

let healthy = true;
const definition = testService(async (kit) => {
  kit.serve(operation(helloOperation, async (name) => ({ hello: name })));
  kit.readiness('dependency', async () => healthy);
});

/** A notice among the test service's replicas. */
const testNotice = peerNotice('certification-runner', 'test-notice', 'A notice of the tests');

describe('a service started by the kit', () => {
  it('answers ping and its operations, reports health, readiness and metrics, and stops cleanly', async () => {
    const running = await startService(definition, system.env);
    const ops = `http://127.0.0.1:${running.opsPort}`;
    const nc = await connect({ servers: TEST_NATS_URL });
    const client = createTestBus(nc, system.naming);
    const ping = pingOperation('certification-runner');
    try {
      expect(await client.request(ping, {})).toEqual({
        service: 'certification-runner',
        status: 'ok',
        store: 'embedded',
      });
      expect(await client.request(helloOperation, 'world')).toEqual({ hello: 'world' });

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
      await expect(client.request(ping, {}, { timeoutMs: 300 })).rejects.toMatchObject({
        code: 'service_unavailable',
      });
      await expect(fetch(`${ops}/healthz`)).rejects.toThrow();
    } finally {
      await running.stop();
      await nc.close();
    }
  });

  it('passes a notice to every running replica of the service, and none after one stops', async () => {
    const heard = { a: 0, b: 0 };
    const replica = (name: 'a' | 'b') =>
      startService(
        testService(async (kit) =>
          kit.notices.hear(testNotice, (detail) => void (heard[name] += detail === 'key_1' ? 1 : 100)),
        ),
        { ...system.env, DATA_DIR: `${system.env.DATA_DIR}/peers-${name}` },
      );
    const a = await replica('a');
    const b = await replica('b');
    try {
      const teller = testService(async (kit) => kit.notices.tell(testNotice, 'key_1'));
      const c = await startService(teller, { ...system.env, DATA_DIR: `${system.env.DATA_DIR}/peers-c` });
      await c.stop();
      await eventually(async () => heard.a === 1 && heard.b === 1, 5_000);
      await b.stop();
      const d = await startService(teller, { ...system.env, DATA_DIR: `${system.env.DATA_DIR}/peers-d` });
      await d.stop();
      await eventually(async () => heard.a === 2, 5_000);
      expect(heard.b).toBe(1);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('refuses a notice declared for another service', async () => {
    const wrong = testService(async (kit) => kit.notices.tell(notices.credentialsChanged));
    await expect(
      startService(wrong, { ...system.env, DATA_DIR: `${system.env.DATA_DIR}/wrong` }),
    ).rejects.toThrow('certification-runner cannot tell svc.gateway.peers.credentials-changed');
  });

  it('tells its operations it is stopping before it waits for them, so a held request answers at once', async () => {
    const held = testService(async (kit) => {
      kit.serve(
        operation(slowOperation, async () => {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 30_000);
            kit.stopping.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
          });
          return { done: kit.stopping.aborted };
        }),
      );
    });
    const running = await startService(held, { ...system.env, DATA_DIR: `${system.env.DATA_DIR}/held` });
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const answer = createTestBus(nc, system.naming).request(slowOperation, {}, { timeoutMs: 20_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const stoppedAt = Date.now();
      await running.stop();
      expect(await answer).toEqual({ done: true });
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
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
