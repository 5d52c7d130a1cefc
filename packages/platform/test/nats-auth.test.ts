import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseEnv, connectNats, createLogger, natsAuthOptions, parseEnv } from '../src/index.js';
import { natsServerInstalled, startNatsServer, type PrivateNatsServer } from '../src/testing/index.js';

/**
 * A NATS server of the test's own that requires a user, as production's does: the service
 * kit connects with NATS_USER/NATS_PASSWORD and is refused without them.
 */
const log = createLogger({ service: 'nats-auth-test', level: 'silent' });
const runs = natsServerInstalled || process.env.CI === 'true';
if (!runs) console.warn('nats-auth: skipped, nats-server is not installed');
let server: PrivateNatsServer | undefined;
let url = '';

beforeAll(async () => {
  if (!runs) return;
  server = await startNatsServer({ authorization: { user: 'payments', password: 'pw-0123456789' } });
  url = server.url;
});

afterAll(async () => {
  await server?.stop();
});

describe.skipIf(!runs)('NATS credentials', () => {
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
