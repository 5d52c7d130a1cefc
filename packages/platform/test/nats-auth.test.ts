import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseEnv, connectNats, createLogger, natsAuthOptions, parseEnv } from '../src/index.js';
import { eventually, freePort } from '../src/testing/index.js';

/**
 * A NATS server of the test's own that requires a user, as production's does: the service
 * kit connects with NATS_USER/NATS_PASSWORD and is refused without them.
 */
const log = createLogger({ service: 'nats-auth-test', level: 'silent' });
// .ci/run installs nats-server; a developer whose NATS runs elsewhere skips this file.
const installed = spawnSync('nats-server', ['--version']).status === 0;
if (!installed && process.env.CI !== 'true') console.warn('nats-auth: skipped, nats-server is not installed');
let server: ChildProcess;
let url = '';

function listening(port: number) {
  return new Promise<boolean>((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

beforeAll(async () => {
  if (!installed && process.env.CI !== 'true') return;
  const port = await freePort();
  url = `nats://127.0.0.1:${port}`;
  server = spawn(
    'nats-server',
    ['-a', '127.0.0.1', '-p', String(port), '--user', 'payments', '--pass', 'pw-0123456789'],
    {
      stdio: 'ignore',
    },
  );
  await eventually(() => listening(port), 10_000);
});

afterAll(() => {
  server?.kill();
});

describe.skipIf(!installed && process.env.CI !== 'true')('NATS credentials', () => {
  it('connects with the user and password of NATS_USER and NATS_PASSWORD', async () => {
    const env = parseEnv(BaseEnv, { NATS_URL: url, NATS_USER: 'payments', NATS_PASSWORD: 'pw-0123456789' });
    const nc = await connectNats({
      url: env.NATS_URL,
      name: 'payments',
      log,
      auth: { user: env.NATS_USER, password: env.NATS_PASSWORD },
    });
    expect(nc.isClosed()).toBe(false);
    await nc.close();
  });

  it('is refused by a server that requires a user when none or a wrong password is given', async () => {
    await expect(connectNats({ url, name: 'anonymous', log })).rejects.toThrow();
    await expect(
      connectNats({ url, name: 'payments', log, auth: { user: 'payments', password: 'wrong' } }),
    ).rejects.toThrow();
  });

  it('refuses half a user/password pair and both kinds of credentials at once', () => {
    expect(() => natsAuthOptions({ user: 'payments' })).toThrow(/NATS_USER and NATS_PASSWORD/);
    expect(() => natsAuthOptions({ password: 'pw' })).toThrow(/NATS_USER and NATS_PASSWORD/);
    expect(() => natsAuthOptions({ user: 'a', password: 'b', credsFile: '/x.creds' })).toThrow(/not both/);
    expect(natsAuthOptions({})).toEqual({});
  });
});
