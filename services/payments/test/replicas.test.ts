import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, startService, type RunningService, type Store } from '@mmp/platform';
import { metricSample } from '@mmp/platform/testing';
import { createPaymentsService } from '../src/service.js';
import { createPayment, eventually, merchant, usePaymentsHarness } from './support.js';
import { startReceiver } from './receiver.js';

/**
 * Two replicas of payments on one database and one NATS prefix, as two pods of one
 * Deployment run: both expiry loops, both webhook senders, both outbox relays and both
 * consumers work at once, and still each payment expires once, with one event, and each
 * merchant webhook is posted once.
 */

const h = usePaymentsHarness({
  env: {
    PAYMENT_TTL_SECONDS: '1',
    EXPIRY_INTERVAL_MS: '20',
    WEBHOOK_POLL_INTERVAL_MS: '10',
    ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true',
  },
});
let store: Store;
const replicas: RunningService[] = [];

beforeAll(async () => {
  // The harness's own instance makes way for two sharing one opened store (one database).
  await h.service.stop();
  store = await openStore({ dataDir: h.system.dataDir, service: 'payments' });
  for (let i = 0; i < 2; i++)
    replicas.push((await startService(createPaymentsService(), h.env, { store })) as RunningService);
});
afterAll(async () => {
  for (const replica of replicas) await replica.stop();
  await store?.close();
});

async function metric(replica: RunningService, name: string, labels: Record<string, string>) {
  const text = await (await fetch(`http://127.0.0.1:${replica.opsPort}/metrics`)).text();
  return metricSample(text, name, labels);
}

describe('two replicas of payments', () => {
  it('expire each payment once, publish one payment.expired each and post each webhook once', async () => {
    const receiver = await startReceiver();
    try {
      const actor = merchant();
      await h.call('webhook-endpoints.create', { body: { url: receiver.url } }, actor);
      const payments: { id: string }[] = [];
      for (let i = 0; i < 12; i++) payments.push(await createPayment(h, actor));

      await eventually(
        async () => payments.every((p) => h.eventsOf(p.id, 'payment.expired').length > 0),
        20_000,
      );
      const expiredIds = payments.map((p) => h.eventsOf(p.id, 'payment.expired')[0]!.id);
      const posted = () => receiver.received.map((r) => r.headers['x-service-event-id']);
      await eventually(async () => expiredIds.every((id) => posted().includes(id)), 20_000);
      // Time for a second replica to make a late duplicate, if it were going to.
      await new Promise((resolve) => setTimeout(resolve, 500));

      for (const p of payments) expect(h.eventsOf(p.id, 'payment.expired')).toHaveLength(1);
      for (const id of expiredIds) expect(posted().filter((eventId) => eventId === id)).toHaveLength(1);
      expect(new Set(posted()).size).toBe(posted().length);

      const delivered = await Promise.all(
        replicas.map((r) => metric(r, 'mmp_webhook_deliveries_total', { outcome: 'delivered' })),
      );
      expect(delivered.reduce((a, b) => a + b, 0)).toBe(posted().length);
      for (const replica of replicas)
        expect(
          await metric(replica, 'mmp_loop_runs_total', { loop: 'payment_expiry', outcome: 'ok' }),
        ).toBeGreaterThan(0);
      expect(await metric(replicas[0]!, 'mmp_outbox_unpublished_events', { collection: 'payments' })).toBe(0);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
