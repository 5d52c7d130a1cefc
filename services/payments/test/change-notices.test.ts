import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, createLogger, type NatsConnection } from '@mmp/platform';
import { notices } from '@mmp/protocol';
import { createPayment, eventually, merchant, usePaymentsHarness } from './support.js';

/**
 * The gateway answers a merchant's reads of a payment from what it kept until payments tells
 * it the payment changed: every change a merchant could see is told, and nothing else (a
 * payment's creation changes nothing the gateway could have kept).
 */
const h = usePaymentsHarness();
let nc: NatsConnection;
const told: string[] = [];

beforeAll(async () => {
  nc = await connectNats({
    url: h.system.env.NATS_URL!,
    name: 'gateway',
    log: createLogger({ service: 'gateway', level: 'silent' }),
  });
  nc.subscribe(h.system.naming.subject(notices.paymentChanged.subject), {
    callback: (_error, msg) => void told.push(...msg.string().split('\n')),
  });
  await nc.flush();
});

afterAll(async () => {
  await nc?.close();
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('payments telling the gateway a payment changed', () => {
  it('tells each change of the payment once, and neither its creation, a read nor outbox bookkeeping', async () => {
    const actor = merchant();
    const created = await createPayment(h, actor);
    await h.call('retrieve', { params: { token: created.token } }, actor);
    await settle();
    expect(told.filter((token) => token === created.token)).toHaveLength(0);

    await h.call('cancel', { params: { token: created.token } }, actor);
    await eventually(async () => told.includes(created.token));
    await settle();
    expect(told.filter((token) => token === created.token)).toHaveLength(1);
  });
});
