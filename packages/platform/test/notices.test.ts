import { afterAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { notices, serviceNotice } from '@mmp/protocol';
import { createLogger } from '../src/logger.js';
import { createNotices } from '../src/notices.js';
import { createNaming } from '../src/nats.js';
import {
  createTestSystem,
  eventually,
  natsServerInstalled,
  startNatsServer,
  TEST_NATS_URL,
} from '../src/testing/index.js';

const system = createTestSystem('notices');
const log = createLogger({ service: 'payments', level: 'silent' });
const changed = serviceNotice('payments', 'test-changed', ['gateway'], 'A notice of the tests');

type Stop = () => Promise<void>;
const stops: Stop[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  system.cleanup();
});

/** The notices of `service` on `nc`, its hearings started at once. */
function noticesOf(nc: NatsConnection, service: 'payments' | 'gateway') {
  return createNotices({
    nc,
    naming: system.naming,
    service,
    log,
    onStart: (start) => void start().then((started) => stops.push(() => started.stop())),
  });
}

async function connected(servers = TEST_NATS_URL) {
  const nc = await connect({ servers, reconnectTimeWait: 50, maxReconnectAttempts: -1 });
  stops.push(() => nc.close());
  return nc;
}

describe('notices between services', () => {
  it('brings each detail told to every listener, in the order told', async () => {
    const heard: string[] = [];
    const replicaA = await connected();
    noticesOf(replicaA, 'gateway').hear(changed, (detail) => void heard.push(detail));
    const heardToo: string[] = [];
    const replicaB = await connected();
    noticesOf(replicaB, 'gateway').hear(changed, (detail) => void heardToo.push(detail));
    await Promise.all([replicaA.flush(), replicaB.flush()]);

    const payments = noticesOf(await connected(), 'payments');
    for (const token of ['pay_a', 'pay_b', 'pay_a', 'pay_c']) payments.tell(changed, token);
    await eventually(async () => heard.length === 4 && heardToo.length === 4, 5_000);
    expect(heard).toEqual(['pay_a', 'pay_b', 'pay_a', 'pay_c']);
    expect(heardToo).toEqual(heard);
  });

  it('lets only the declared service tell it and only its listeners hear it', async () => {
    const nc = await connected();
    expect(() => noticesOf(nc, 'gateway').tell(changed, 'pay_a')).toThrow(
      'gateway cannot tell notice.payments.test-changed: it is declared for payments',
    );
    expect(() => noticesOf(nc, 'payments').hear(changed, () => undefined)).toThrow(
      'payments cannot hear notice.payments.test-changed: it is told to gateway',
    );
    expect(() => noticesOf(nc, 'payments').tell(notices.credentialsChanged)).toThrow(
      'it is declared for gateway',
    );
  });

  describe.skipIf(!natsServerInstalled && process.env.CI !== 'true')('across a lost connection', () => {
    it('tells the listener it may have missed notices once the connection is back', async () => {
      const server = await startNatsServer();
      stops.push(() => server.stop());
      const nc = await connected(server.url);
      let missed = 0;
      const heard: string[] = [];
      noticesOf(nc, 'gateway').hear(changed, (detail) => void heard.push(detail), {
        missed: () => void (missed += 1),
      });
      await nc.flush();
      await server.restart({ downMs: 100 });
      await eventually(async () => missed === 1, 10_000);

      const payments = noticesOf(await connected(server.url), 'payments');
      payments.tell(changed, 'pay_after');
      await eventually(async () => heard.includes('pay_after'), 5_000);
    });
  });
});

it('names notices under the prefix of the system', () => {
  expect(createNaming('p1').subject(changed.subject)).toBe('p1.notice.payments.test-changed');
});
