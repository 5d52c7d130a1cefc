import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '@mmp/protocol';
import { eventually, merchant, settlement, usePaymentsHarness } from './support.js';
import { merchantVerifies, startReceiver } from './receiver.js';

const BURST = 40;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const h = usePaymentsHarness({
  env: { IDEMPOTENCY_STALE_MS: '500', IDEMPOTENCY_WAIT_MS: '200', ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true' },
});
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver(() => sleep(60).then(() => 200));
});
afterAll(async () => {
  await receiver?.close();
});

const RETRYABLE = new Set(['service_unavailable', 'idempotency_conflict', 'internal_error']);
let retries = 0;

/** What a merchant does: retry with the same Idempotency-Key until an answer comes. */
async function createUntilAnswered(actor: ReturnType<typeof merchant>, key: string, amount: number) {
  for (;;) {
    try {
      const reply = await h.call(
        'create',
        { body: { amount, reference: `BURST-${key}` }, headers: { 'idempotency-key': key } },
        actor,
        1500,
      );
      return reply.body as { id: string; token: string };
    } catch (error) {
      if (!isAppError(error) || !RETRYABLE.has(error.code)) throw error;
      retries += 1;
      await sleep(50);
    }
  }
}

describe('a restart in the middle of a burst', () => {
  it(
    'loses no payment or event and sends no webhook twice for one event to one endpoint',
    { timeout: 120_000 },
    async () => {
      const actor = merchant();
      const endpoint = (await h.call('webhook-endpoints.create', { body: { url: receiver.url } }, actor))
        .body as { secret: string };

      const keys = Array.from({ length: BURST }, () => randomUUID());
      const creating = keys.map((key, i) =>
        sleep(i * 5).then(() => createUntilAnswered(actor, key, 1000 + i)),
      );
      await sleep(80);
      await h.restart();
      const payments = await Promise.all(creating);
      // The restart really interrupted the burst: some merchants had to retry.
      expect(retries).toBeGreaterThan(0);

      expect(new Set(payments.map((p) => p.id)).size).toBe(BURST);
      const list = (await h.call('list', { query: { limit: '100' } }, actor)).body as {
        meta: { total: number };
      };
      expect(list.meta.total).toBe(BURST);
      await eventually(
        async () => payments.every((p) => h.eventsOf(p.id, 'payment.created').length >= 1),
        10_000,
      );

      // Settle every payment; restart again while merchant webhooks are being sent.
      for (const payment of payments) {
        await h.publish('settlement.received', settlement(payment.id, 'COMPLETED', { amount: 1000 }));
      }
      await eventually(async () => receiver.received.length > 3, 10_000);
      const sentBeforeRestart = receiver.received.length;
      await h.restart();
      expect(sentBeforeRestart).toBeLessThan(BURST);

      // A settlement the stopped consumer had taken but not handled comes back after its ack
      // wait (30 s): late, never lost.
      await eventually(
        async () => payments.every((p) => h.eventsOf(p.id, 'payment.completed').length >= 1),
        45_000,
      );
      // So may a payment.completed the webhooks consumer had been sent as the restart began.
      const distinct = await eventually(async () => {
        const ids = new Set(receiver.received.map((r) => r.body.id as string));
        return ids.size === BURST && ids;
      }, 45_000);
      await sleep(300);

      // One completed event per payment (stream de-duplication by event id), one send per event.
      for (const payment of payments) {
        expect(new Set(h.eventsOf(payment.id, 'payment.created').map((e) => e.id)).size).toBe(1);
        expect(new Set(h.eventsOf(payment.id, 'payment.completed').map((e) => e.id)).size).toBe(1);
      }
      expect(receiver.received).toHaveLength(BURST);
      expect(distinct.size).toBe(BURST);
      expect(
        receiver.received.every((r) =>
          merchantVerifies(endpoint.secret, r.headers['x-service-signature'] as string, r.raw),
        ),
      ).toBe(true);
    },
  );
});
