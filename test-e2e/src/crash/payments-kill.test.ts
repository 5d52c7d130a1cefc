import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedEvent } from '@mmp/platform';
import { eventually } from '@mmp/platform/testing';
import { paymentEvents } from '@mmp/protocol';
import { startSystem, type ProjectKeys, type RunningSystem } from '../support/system.js';
import { startOwnProcess, type OwnProcess } from '../support/own-process.js';
import { api } from '../support/http.js';
import { startMerchantReceiver } from './merchant-receiver.js';
import { payOnHostedPage } from '../support/shopper.js';
import { observeEvents, type Observer } from '../support/observer.js';

/**
 * Issue 4: payments runs as its own process and is killed with SIGKILL, once in the middle
 * of a burst of creates and once while merchant webhooks are on the wire. Nothing the
 * killed process acknowledged may be lost, nothing retried may be doubled, every payment
 * keeps its event, and no endpoint is answered twice for one event id.
 */
const BURST = 60;
const paymentsEnv = {
  // A key whose holder was killed mid-request is retried after this long.
  IDEMPOTENCY_STALE_MS: '1000',
  IDEMPOTENCY_WAIT_MS: '200',
  WEBHOOK_TIMEOUT_MS: '500',
  WEBHOOK_POLL_INTERVAL_MS: '100',
  WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800',
};

let system: RunningSystem;
let payments: OwnProcess;
let project: ProjectKeys;
let merchant: ReturnType<typeof api>;
let receiver: Awaited<ReturnType<typeof startMerchantReceiver>>;
const OBSERVED = [paymentEvents.created, paymentEvents.completed] as const;
let observer: Observer<typeof OBSERVED>;
const endpointIds: string[] = [];

beforeAll(async () => {
  system = await startSystem({ external: ['payments'] });
  payments = await startOwnProcess(system, 'payments', paymentsEnv);
  project = await system.createProject('Crash Shop');
  merchant = api(system.baseUrl, project.testSecretKey);
  receiver = await startMerchantReceiver();
  for (const path of ['/a', '/b']) {
    const endpoint = await merchant<{ id: string }>('POST', '/v1/webhook-endpoints', {
      url: receiver.url(path),
      enabledEvents: ['*'],
    });
    expect(endpoint.status).toBe(201);
    endpointIds.push(endpoint.body.id);
  }
  observer = await observeEvents(system, 'customers', 'crash-observer', OBSERVED);
}, 60_000);

afterAll(async () => {
  await observer?.stop();
  await receiver?.close();
  await system?.stop();
});

type Create = {
  key: string;
  body: { amount: number; reference: string };
  token?: string;
  statuses: number[];
};

async function create(request: Create) {
  const reply = await merchant<{ token?: string }>('POST', '/v1/payments', request.body, {
    'idempotency-key': request.key,
  });
  request.statuses.push(reply.status);
  if (reply.status === 201) request.token = reply.body.token;
  return reply;
}

const tokenOfEvent = (event: ReceivedEvent<(typeof OBSERVED)[number]>) => event.data.payment.token;

describe('payments killed with SIGKILL', () => {
  const creates: Create[] = Array.from({ length: BURST }, (_, i) => ({
    key: `burst-${i}-${Date.now()}`,
    body: { amount: 1000 + i, reference: `crash-order-${i}` },
    statuses: [],
  }));

  it('during a burst of creates loses no payment and no event, and doubles none on retry', async () => {
    // Six merchant workers fire the burst; the process is killed once a third is answered.
    let next = 0;
    let killed: Promise<void> | undefined;
    const worker = async () => {
      while (next < creates.length) {
        const request = creates[next++]!;
        await create(request);
        if (!killed && creates.filter((c) => c.token).length >= BURST / 3) killed = payments.restart();
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    await killed;
    const acknowledged = creates.filter((c) => c.token).map((c) => ({ key: c.key, token: c.token! }));
    const unanswered = creates.filter((c) => !c.token);
    expect(acknowledged.length).toBeGreaterThanOrEqual(BURST / 3);
    expect(unanswered.length).toBeGreaterThan(0);
    // While the process is gone the gateway answers 503; a key whose holder died is 409 for a moment.
    for (const c of unanswered) for (const status of c.statuses) expect([409, 503]).toContain(status);

    // The merchant retries what failed, with the same Idempotency-Keys.
    for (const request of unanswered) {
      await eventually(async () => (await create(request)).status === 201, 15_000, 200);
    }
    for (const c of creates) for (const status of c.statuses) expect([201, 409, 503]).toContain(status);

    // What was acknowledged before the kill is still there, and its key still replays it.
    for (const { key, token } of acknowledged) {
      expect((await merchant<{ token: string }>('GET', `/v1/payments/${token}`)).status).toBe(200);
      const body = creates.find((c) => c.key === key)!.body;
      const replay = await merchant<{ token: string }>('POST', '/v1/payments', body, {
        'idempotency-key': key,
      });
      expect(replay).toMatchObject({ status: 201, body: { token } });
    }

    // One payment per distinct key: no duplicates, none lost.
    const list = await merchant<{ data: { token: string; reference: string }[]; has_more: boolean }>(
      'GET',
      '/v1/payments?limit=100',
    );
    expect(list.status).toBe(200);
    const tokens = creates.map((c) => c.token!);
    expect(new Set(tokens).size).toBe(BURST);
    expect(list.body.data.map((p) => p.token).sort()).toEqual([...tokens].sort());
    expect(list.body.has_more).toBe(false);

    // Every payment has exactly one payment.created event (the outbox relay publishes what the kill interrupted).
    await eventually(async () => {
      const published = new Set(
        observer.received.filter((e) => e.type === 'payment.created').map(tokenOfEvent),
      );
      return tokens.every((token) => published.has(token));
    }, 15_000);
    const created = observer.received.filter((e) => e.type === 'payment.created');
    for (const token of tokens) {
      expect(new Set(created.filter((e) => tokenOfEvent(e) === token).map((e) => e.id)).size).toBe(1);
    }
  });

  async function pay(token: string) {
    const payment = await merchant<{ paymentUrl: string }>('GET', `/v1/payments/${token}`);
    await payOnHostedPage(system.baseUrl, payment.body, '+237690000001');
  }

  const answered = (token: string, path: string) =>
    receiver.deliveries.filter(
      (d) =>
        d.token === token &&
        d.path === path &&
        d.type === 'transaction.completed' &&
        d.outcome === 'answered',
    );

  async function deliveriesDone(eventIds: string[]) {
    for (const endpointId of endpointIds) {
      const list = await merchant<{ data: { eventId: string; status: string }[] }>(
        'GET',
        `/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`,
      );
      const done = list.body.data.filter((d) => eventIds.includes(d.eventId) && d.status === 'delivered');
      if (done.length !== eventIds.length) return false;
    }
    return true;
  }

  it('while webhooks are on the wire answers each endpoint once per event id', async () => {
    const tokens = creates.map((c) => c.token!);
    const before = tokens.slice(0, 3);
    const during = tokens.slice(3, 6);

    // Delivered and recorded before the kill: never sent again.
    for (const token of before) await pay(token);
    await eventually(
      async () => before.every((token) => ['/a', '/b'].every((path) => answered(token, path).length === 1)),
      20_000,
    );
    const beforeIds = [
      ...new Set(receiver.deliveries.filter((d) => before.includes(d.token)).map((d) => d.eventId)),
    ];
    await eventually(() => deliveriesDone(beforeIds), 10_000);

    // On the wire when the process dies: the merchant never answered, so they are sent again, same id.
    receiver.hold(true);
    for (const token of during) await pay(token);
    await eventually(async () => receiver.held().length === during.length * 2, 20_000);
    await payments.kill();
    await eventually(async () => receiver.held().length === 0);
    receiver.hold(false);
    const aborted = receiver.deliveries.filter((d) => d.outcome === 'aborted');
    expect(aborted.map((d) => d.token).sort()).toEqual([...during, ...during].sort());

    await payments.start();
    // A crashed sender's claim lapses after twice the webhook timeout plus 10 s.
    await eventually(
      async () => during.every((token) => ['/a', '/b'].every((path) => answered(token, path).length === 1)),
      30_000,
      200,
    );
    const duringIds = [
      ...new Set(receiver.deliveries.filter((d) => during.includes(d.token)).map((d) => d.eventId)),
    ];
    await eventually(() => deliveriesDone(duringIds), 10_000);
    await sleep(500);

    for (const token of [...before, ...during]) {
      for (const path of ['/a', '/b']) {
        const completed = receiver.deliveries.filter(
          (d) => d.token === token && d.path === path && d.type === 'transaction.completed',
        );
        expect(new Set(completed.map((d) => d.eventId)).size).toBe(1);
        expect(answered(token, path)).toHaveLength(1);
        // Sent once if it was recorded before the kill; once more only if the kill cut it off.
        expect(completed).toHaveLength(before.includes(token) ? 1 : 2);
      }
      expect((await merchant<{ status: string }>('GET', `/v1/payments/${token}`)).body.status).toBe(
        'COMPLETED',
      );
    }
    for (const delivery of receiver.deliveries) expect(delivery.headerEventId).toBe(delivery.eventId);
    // One payment.completed event per payment, whatever was redelivered.
    const completedEvents = observer.received.filter((e) => e.type === 'payment.completed');
    for (const token of [...before, ...during]) {
      expect(new Set(completedEvents.filter((e) => tokenOfEvent(e) === token).map((e) => e.id)).size).toBe(1);
    }
  }, 90_000);
});
