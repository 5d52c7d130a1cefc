import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import {
  createTestBus,
  createTestSystem,
  eventually,
  spawnTypeScript,
  TEST_NATS_URL,
} from '../src/testing/index.js';
import { slowOperation } from './test-contracts.js';

/** The process a Deployment runs: exit codes and signals, not just the in-process kit. */

const system = createTestSystem('runsvc');
afterAll(() => system.cleanup());

function runFixture(env: Record<string, string>) {
  const fixture = fileURLToPath(new URL('./run-service.fixture.ts', import.meta.url));
  return spawnTypeScript(fixture, { ...process.env, ...env });
}

describe('runService', () => {
  it('exits 1 before connecting anything, naming the bad variable', async () => {
    const run = runFixture({ ...system.env, SHUTDOWN_TIMEOUT_MS: 'soon', NATS_URL: 'http://nats:4222' });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/invalid configuration/);
    expect(run.output()).toMatch(/SHUTDOWN_TIMEOUT_MS: /);
    expect(run.output()).toMatch(/NATS_URL: must be NATS server URLs/);
  }, 20_000);

  it('on SIGTERM answers /readyz 503 while it drains, finishes the request in flight and exits 0', async () => {
    const run = runFixture({
      ...system.env,
      OPS_PORT: '0',
      LOG_LEVEL: 'info',
      SHUTDOWN_DELAY_MS: '500',
      FIXTURE_SLOW_MS: '1000',
    });
    const opsPort = await eventually(async () => /"opsPort":(\d+)/.exec(run.output())?.[1], 20_000);
    const readyz = () => fetch(`http://127.0.0.1:${opsPort}/readyz`).then((r) => r.status);
    expect(await readyz()).toBe(200);

    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const inFlight = createTestBus(nc, system.naming).request(slowOperation, {}, { timeoutMs: 5000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      run.child.kill('SIGTERM');
      await eventually(async () => (await readyz()) === 503);
      expect((await fetch(`http://127.0.0.1:${opsPort}/healthz`)).status).toBe(200);
      expect(await inFlight).toEqual({ done: true });
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain('service stopped');
    } finally {
      run.child.kill('SIGKILL');
      await nc.close();
    }
  }, 30_000);
});
