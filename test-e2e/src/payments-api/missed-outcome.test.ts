import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectNats,
  consumeEvents,
  createLogger,
  type NatsConnection,
  type ReceivedEvent,
} from '@mmp/platform';
import { eventually } from '@mmp/platform/testing';
import { routerEvents } from '@mmp/protocol';
import { startSystem, type ProjectKeys, type RunningSystem } from '../support/system.js';
import { startOwnProcess, type OwnProcess } from '../support/own-process.js';
import { api, startWebhookReceiver } from '../support/http.js';
import { createPayment, type Call, type CreatedPayment } from './helpers.js';
import { payOnHostedPage } from '../support/shopper.js';

/**
 * The settlement of a payment reaches provider-router, but payments never applies it: its
 * process is down when the settlement is published, and the event on its durable consumer is
 * acknowledged without being applied (as a replica that acked before its write was durable
 * would). Nothing is faked: the event is real and goes through real NATS; it is just lost to
 * payments. The merchant's verify must recover the outcome from provider-router.
 */
const paymentsEnv = { WEBHOOK_POLL_INTERVAL_MS: '50' };
/** Any sandbox number other than the test numbers settles COMPLETED after this long. */
const SETTLE_AFTER_MS = 4_000;
const PAYER = '+237690000077';

let system: RunningSystem;
let payments: OwnProcess;
let project: ProjectKeys;
let merchant: Call;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let nc: NatsConnection;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  system = await startSystem({ external: ['payments'], env: { SANDBOX_DELAY_MS: String(SETTLE_AFTER_MS) } });
  payments = await startOwnProcess(system, 'payments', paymentsEnv);
  // Every service answers, and the sandbox provider has registered its rail.
  await eventually(async () => (await fetch(`${system.baseUrl}/v1/health`)).ok, 20_000);
  project = await system.createProject('Missed Outcome Shop');
  merchant = api(system.baseUrl, project.testSecretKey);
  expect((await merchant('POST', '/v1/webhook-endpoints', { url: receiver.url })).status).toBe(201);
  const log = createLogger({ service: 'lost-event', level: 'silent' });
  nc = await connectNats({ url: system.system.env.NATS_URL!, name: 'lost-event', log });
}, 60_000);

afterAll(async () => {
  await nc?.drain();
  await system?.stop();
  await receiver?.close();
});

type Payment = CreatedPayment & { paymentMethod: string; events?: { type: string }[] };

const statusOf = async (token: string) =>
  (await merchant<Payment>('GET', `/v1/payments/${token}`)).body.status;

const webhooksFor = (token: string) =>
  receiver.received
    .map((w) => JSON.parse(w.rawBody) as { id: string; type: string; data: { token: string } })
    .filter((event) => event.data.token === token);

/** What payments' durable consumer of provider-router's outcomes reads. */
const LIFECYCLE = [
  routerEvents.executionAccepted,
  routerEvents.executionFailed,
  routerEvents.settlementReceived,
] as const;

/** Takes events off payments' own durable consumer and acknowledges them unapplied, until the settlement of `paymentId`. */
async function loseSettlementOf(paymentId: string) {
  const lost: ReceivedEvent<(typeof LIFECYCLE)[number]>[] = [];
  const consumer = await consumeEvents({
    nc,
    naming: system.system.naming,
    service: 'payments',
    durable: 'payments-lifecycle',
    events: LIFECYCLE,
    log: createLogger({ service: 'lost-event', level: 'silent' }),
    handle: async (event) => void lost.push(event),
  });
  try {
    return await eventually(
      async () =>
        lost.find((event) => event.type === 'settlement.received' && event.data.paymentId === paymentId),
      SETTLE_AFTER_MS + 15_000,
    );
  } finally {
    await consumer.stop();
  }
}

describe('verify recovers an outcome payments missed', () => {
  it('answers COMPLETED from provider-router, tells the merchant once, and stays idempotent', async () => {
    const payment = await createPayment(merchant, { amount: 2500, reference: 'order-lost-1' });
    await payOnHostedPage(system.baseUrl, payment, PAYER, 'ORANGE_MONEY');
    // The sandbox accepted the order; its settlement is due a few seconds later.
    await eventually(async () => (await statusOf(payment.token)) === 'PROCESSING', 10_000, 50);

    await payments.kill();
    const settlement = await loseSettlementOf(payment.id);
    expect(settlement.data).toMatchObject({ paymentId: payment.id, status: 'COMPLETED' });
    await payments.start();

    // Back up, payments has nothing left to consume: the payment is stuck where it was.
    await sleep(1_000);
    expect(await statusOf(payment.token)).toBe('PROCESSING');
    expect(webhooksFor(payment.token)).toEqual([]);

    const verified = await merchant<Payment>('GET', `/v1/payments/${payment.token}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      token: payment.token,
      status: 'COMPLETED',
      paymentMethod: 'ORANGE_MONEY',
      payerPhone: PAYER,
      reference: 'order-lost-1',
    });
    expect(Date.parse(String(verified.body.completedAt))).toBeGreaterThan(Date.parse(payment.createdAt));
    const retrieved = await merchant<Payment>('GET', `/v1/payments/${payment.token}?expand[]=events`);
    expect(retrieved.body.status).toBe('COMPLETED');
    expect(retrieved.body.events!.filter((e) => e.type === 'payment.completed')).toHaveLength(1);

    const [completed] = await eventually(
      async () => webhooksFor(payment.token).length > 0 && webhooksFor(payment.token),
    );
    expect(completed).toMatchObject({
      type: 'transaction.completed',
      data: { token: payment.token, status: 'COMPLETED' },
    });

    // A second verify learns nothing new: same answer, no second event, no second webhook.
    const again = await merchant<Payment>('GET', `/v1/payments/${payment.token}/verify`);
    expect(again).toMatchObject({ status: 200, body: verified.body });
    const later = await createPayment(merchant);
    expect((await merchant('POST', `/v1/payments/${later.token}/cancel`)).status).toBe(200);
    await eventually(async () => webhooksFor(later.token).length > 0);
    expect(webhooksFor(payment.token)).toEqual([completed]);
    const timeline = await merchant<Payment>('GET', `/v1/payments/${payment.token}?expand[]=events`);
    expect(timeline.body.events!.filter((e) => e.type === 'payment.completed')).toHaveLength(1);
  }, 60_000);
});
