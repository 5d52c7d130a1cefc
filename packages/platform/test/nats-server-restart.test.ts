import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { natsServerInstalled, startNatsServer, type PrivateNatsServer } from '../src/testing/index.js';

/**
 * The chaos suite restarts its own nats-server mid-burst: a restart must keep JetStream's
 * folder, so what was stored before is there after, as on a real server.
 */
const runs = natsServerInstalled || process.env.CI === 'true';
let server: PrivateNatsServer | undefined;

afterAll(async () => {
  await server?.stop();
});

describe.skipIf(!runs)('a private nats-server restarted', () => {
  it('comes back on the same port with its streams and messages', async () => {
    server = await startNatsServer();
    const before = await connect({ servers: server.url });
    const jsm = await jetstreamManager(before);
    await jsm.streams.add({ name: 'KEPT', subjects: ['kept.>'] });
    await jetstream(before).publish('kept.one', 'stored');
    await before.close();

    await server.restart({ downMs: 200 });

    const after = await connect({ servers: server.url });
    try {
      const info = await (await jetstreamManager(after)).streams.info('KEPT');
      expect(info.state.messages).toBe(1);
    } finally {
      await after.close();
    }
  });
});
