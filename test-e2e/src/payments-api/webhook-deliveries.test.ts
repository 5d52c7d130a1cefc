import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useShop } from '../support/shop.js';
import { eventually } from '@mmp/platform/testing';
import { api } from '../support/http.js';
import { createPayment, expectEnvelopeError, payAndSettle } from './helpers.js';

type Received = {
  path: string;
  /** When the receiver read the request (ms since the epoch). */
  at: number;
  signature: string;
  rawBody: string;
  event: { id: string; type: string; createdAt: string; data: { token: string } & Record<string, unknown> };
};
type Attempt = {
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  manual: boolean;
};
type Delivery = {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  status: string;
  attemptCount: number;
  attempts: Attempt[];
};

/** Retries 500 ms then 1.5 s after a failure, each with the documented ±20 % jitter. */
const RETRY_SCHEDULE_MS = [500, 1_500];
const JITTER = 0.2;

const shop = useShop('Deliveries Shop', {
  env: { WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE_MS.join(','), WEBHOOK_POLL_INTERVAL_MS: '50' },
});
const { merchant } = shop;
let server: Server;
let base: string;
const received: Received[] = [];
/** The status each receiver path answers; 200 unless set. */
const answers = new Map<string, number>();

beforeAll(async () => {
  server = createServer((request, response) => {
    let rawBody = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (rawBody += chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      received.push({
        path,
        at: Date.now(),
        signature: String(request.headers['x-service-signature']),
        rawBody,
        event: JSON.parse(rawBody),
      });
      response.writeHead(answers.get(path) ?? 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

async function endpoint(path: string, body: Record<string, unknown> = {}) {
  const created = await merchant<{ id: string; secret: string }>('POST', '/v1/webhook-endpoints', {
    url: `${base}${path}`,
    ...body,
  });
  expect(created.status).toBe(201);
  return created.body;
}

/** A terminal transition without a provider: the merchant cancels a fresh payment. */
async function cancelledPayment(body: Record<string, unknown> = {}) {
  const payment = await createPayment(merchant, body);
  expect((await merchant('POST', `/v1/payments/${payment.token}/cancel`)).status).toBe(200);
  return payment.token;
}

const receivedAt = (path: string, token: string) =>
  received.filter((r) => r.path === path && r.event.data.token === token);

async function deliveriesOf(endpointId: string, query = '') {
  const response = await merchant<{ data: Delivery[]; has_more: boolean }>(
    'GET',
    `/v1/webhook-endpoints/${endpointId}/deliveries${query}`,
  );
  expect(response.status).toBe(200);
  return response.body;
}

/** Checks the signature with node:crypto directly, not with the project's signing code. */
function signedWith(secret: string, hit: Received): boolean {
  const timestamp = /t=(\d+)/.exec(hit.signature)?.[1];
  const expected = createHmac('sha256', secret).update(`${timestamp}.${hit.rawBody}`).digest('hex');
  return [...hit.signature.matchAll(/v1=([0-9a-f]+)/g)].some((m) => m[1] === expected);
}

describe('merchant webhook deliveries over HTTP', () => {
  it('signs each event with the endpoint secret and records every attempt', async () => {
    const hook = await endpoint('/signed');
    const token = await cancelledPayment({ reference: 'order-1001', metadata: { cart: 'c-9' } });
    const [hit] = await eventually(
      async () => receivedAt('/signed', token).length > 0 && receivedAt('/signed', token),
    );
    expect(Object.keys(hit!.event).sort()).toEqual(['createdAt', 'data', 'id', 'livemode', 'type']);
    expect(hit!.event).toMatchObject({ type: 'transaction.cancelled', livemode: false });
    expect(hit!.event.id).toMatch(/^evt_/);
    expect(new Date(hit!.event.createdAt).toISOString()).toBe(hit!.event.createdAt);
    // The documented token, amount, currency and status, the merchant's own reference, and
    // what the merchant needs to act without calling back.
    expect(hit!.event.data).toEqual({
      token,
      amount: 1000,
      currency: 'XAF',
      status: 'CANCELLED',
      reference: 'order-1001',
      paymentMethod: 'UNKNOWN',
      payerPhone: null,
      completedAt: null,
      metadata: { cart: 'c-9' },
      failureCode: 'payment_cancelled',
      failureMessage: expect.any(String),
    });
    const retrieved = await merchant<{ reference: string }>('GET', `/v1/payments/${token}`);
    expect(hit!.event.data.reference).toBe(retrieved.body.reference);
    expect(signedWith(hook.secret, hit!)).toBe(true);

    const delivery = await eventually(async () =>
      (await deliveriesOf(hook.id)).data.find((d) => d.status === 'delivered'),
    );
    expect(delivery).toMatchObject({
      eventId: hit!.event.id,
      eventType: 'transaction.cancelled',
      endpointId: hook.id,
      attemptCount: 1,
    });
    expect(delivery.attempts[0]).toMatchObject({
      statusCode: 200,
      error: null,
      manual: false,
      latencyMs: expect.any(Number),
    });
  });

  it('sends completed and failed payments to an endpoint that subscribes to them only', async () => {
    const hook = await endpoint('/outcomes', {
      enabledEvents: ['transaction.completed', 'transaction.failed'],
    });
    await endpoint('/everything', { enabledEvents: ['*'] });
    const paid = await createPayment(merchant);
    await payAndSettle(shop.system.baseUrl, merchant, paid, '+237690000001', 'COMPLETED');
    const failed = await createPayment(merchant);
    await payAndSettle(shop.system.baseUrl, merchant, failed, '+237690000002', 'FAILED');
    const cancelled = await cancelledPayment();
    await eventually(
      async () =>
        receivedAt('/outcomes', paid.token).length === 1 &&
        receivedAt('/outcomes', failed.token).length === 1,
    );
    const completed = receivedAt('/outcomes', paid.token)[0]!.event;
    expect(completed.type).toBe('transaction.completed');
    expect(completed.data).toMatchObject({
      token: paid.token,
      status: 'COMPLETED',
      paymentMethod: 'ORANGE_MONEY',
      payerPhone: '+237690000001',
      completedAt: expect.any(String),
      failureCode: null,
      failureMessage: null,
    });
    expect(receivedAt('/outcomes', failed.token)[0]!.event.data).toMatchObject({
      status: 'FAILED',
      failureCode: 'insufficient_balance',
      completedAt: null,
    });
    expect(receivedAt('/outcomes', failed.token)[0]!.event.type).toBe('transaction.failed');
    expect(signedWith(hook.secret, receivedAt('/outcomes', failed.token)[0]!)).toBe(true);
    // The catch-all endpoint got the cancellation, so the filtered one had its chance too.
    await eventually(async () => receivedAt('/everything', cancelled).length === 1);
    expect(receivedAt('/outcomes', cancelled)).toEqual([]);
    expect((await deliveriesOf(hook.id)).data.map((d) => d.eventType).sort()).toEqual([
      'transaction.completed',
      'transaction.failed',
    ]);
  });

  it('lists deliveries newest first with limit and has_more, and refuses a bad limit', async () => {
    const hook = await endpoint('/paged');
    const first = await cancelledPayment();
    await eventually(async () => receivedAt('/paged', first).length === 1);
    const second = await cancelledPayment();
    await eventually(
      async () => (await deliveriesOf(hook.id)).data.filter((d) => d.status === 'delivered').length === 2,
    );
    const page = await deliveriesOf(hook.id, '?limit=1');
    expect(page.has_more).toBe(true);
    expect(page.data[0]!.eventId).toBe(receivedAt('/paged', second)[0]!.event.id);
    expect((await deliveriesOf(hook.id, '?limit=2')).has_more).toBe(false);
    for (const limit of ['0', '101', 'x']) {
      expectEnvelopeError(
        await merchant('GET', `/v1/webhook-endpoints/${hook.id}/deliveries?limit=${limit}`),
        400,
        'invalid_request',
      );
    }
  });

  it('retries a failing endpoint on its schedule, records each failure, then redelivers on demand', async () => {
    answers.set('/flaky', 500);
    const hook = await endpoint('/flaky');
    const token = await cancelledPayment();
    const failed = await eventually(
      async () => (await deliveriesOf(hook.id)).data.find((d) => d.status === 'failed'),
      10_000,
    );
    expect(failed.attemptCount).toBe(3);
    for (const attempt of failed.attempts)
      expect(attempt).toMatchObject({ statusCode: 500, error: expect.any(String), manual: false });
    expect(new Set(receivedAt('/flaky', token).map((r) => r.event.id)).size).toBe(1);
    // Each retry waits its step of the schedule (less at most the jitter), and the second longer.
    const [first, second, third] = receivedAt('/flaky', token).map((r) => r.at);
    expect(second! - first!).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[0]! * (1 - JITTER));
    expect(third! - second!).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[1]! * (1 - JITTER));
    expect(third! - second!).toBeGreaterThan(second! - first!);
    const recorded = failed.attempts.map((attempt) => Date.parse(attempt.at));
    expect(recorded[1]! - recorded[0]!).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[0]! * (1 - JITTER));

    answers.set('/flaky', 200);
    const redelivered = await merchant<Delivery>(
      'POST',
      `/v1/webhook-endpoints/${hook.id}/deliveries/${failed.id}/redeliver`,
    );
    expect(redelivered.status).toBe(202);
    expect(redelivered.body).toMatchObject({ id: failed.id, status: 'pending' });
    const done = await eventually(async () =>
      (await deliveriesOf(hook.id)).data.find((d) => d.id === failed.id && d.status === 'delivered'),
    );
    expect(done.attemptCount).toBe(4);
    expect(done.attempts[3]).toMatchObject({ statusCode: 200, error: null, manual: true });
    const hits = receivedAt('/flaky', token);
    expect(hits).toHaveLength(4);
    expect(new Set(hits.map((r) => r.event.id))).toEqual(new Set([failed.eventId]));
    expect(new Set(hits.map((r) => r.rawBody)).size).toBe(1);
  });

  it('redelivers a delivered event with the same id and refuses unknown deliveries', async () => {
    const hook = await endpoint('/again');
    const token = await cancelledPayment();
    const delivered = await eventually(async () =>
      (await deliveriesOf(hook.id)).data.find((d) => d.status === 'delivered'),
    );
    expect(
      (await merchant('POST', `/v1/webhook-endpoints/${hook.id}/deliveries/${delivered.id}/redeliver`))
        .status,
    ).toBe(202);
    await eventually(async () => receivedAt('/again', token).length === 2);
    expect(receivedAt('/again', token).map((r) => r.event.id)).toEqual([
      delivered.eventId,
      delivered.eventId,
    ]);
    const unknown = `/v1/webhook-endpoints/${hook.id}/deliveries/whd_nothing/redeliver`;
    expectEnvelopeError(await merchant('POST', unknown), 404, 'resource_not_found');
    const other = await shop.system.createProject('Other Deliveries');
    const nosy = api(shop.system.baseUrl, other.testSecretKey);
    expectEnvelopeError(
      await nosy('POST', `/v1/webhook-endpoints/${hook.id}/deliveries/${delivered.id}/redeliver`),
      404,
      'resource_not_found',
    );
  });

  it('signs with the rolled secret at once, and sends nothing to a disabled or deleted endpoint', async () => {
    const rolled = await endpoint('/rolled');
    const disabled = await endpoint('/disabled');
    const deleted = await endpoint('/deleted');
    const roll = await merchant<{ secret: string }>('POST', `/v1/webhook-endpoints/${rolled.id}/roll-secret`);
    expect(
      (await merchant('PATCH', `/v1/webhook-endpoints/${disabled.id}`, { status: 'disabled' })).status,
    ).toBe(200);
    expect((await merchant('DELETE', `/v1/webhook-endpoints/${deleted.id}`)).status).toBe(200);
    const token = await cancelledPayment();
    const [hit] = await eventually(
      async () => receivedAt('/rolled', token).length > 0 && receivedAt('/rolled', token),
    );
    expect(signedWith(roll.body.secret, hit!)).toBe(true);
    expect(signedWith(rolled.secret, hit!)).toBe(false);
    // The live endpoint above got its event, so the others had the same chance.
    await eventually(async () => (await deliveriesOf(rolled.id)).data.some((d) => d.status === 'delivered'));
    expect(receivedAt('/disabled', token)).toEqual([]);
    expect(receivedAt('/deleted', token)).toEqual([]);
    expect((await deliveriesOf(disabled.id)).data).toEqual([]);
  });
});
