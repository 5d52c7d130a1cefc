import { setTimeout as sleep } from 'node:timers/promises';
import { createPullClient, paymentAck, pushSettlement, settlementOf } from '@mmp/provider-kit';

/**
 * A provider's pull adapter built with the kit, as small as it gets: fetch pending orders,
 * ack each ACCEPTED (again, never executing again, if it comes back), and push its
 * settlement (FAILED for a certification failure number).
 */
export function startPullAdapter(options: {
  apiKey: string;
  providerId: string;
  signingSecret: string;
  serviceUrl: string;
}) {
  const client = createPullClient({ baseUrl: options.serviceUrl, apiKey: options.apiKey });
  const executed = new Set<string>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const orders = await client.pending().catch(() => []);
      for (const { payload: order } of orders) {
        await client.ack(paymentAck(order, 'ACCEPTED')).catch(() => undefined);
        if (executed.has(order.idempotency_key)) continue;
        executed.add(order.idempotency_key);
        await pushSettlement({
          baseUrl: options.serviceUrl,
          providerId: options.providerId,
          signingSecret: options.signingSecret,
          event: settlementOf(order),
        }).catch(() => undefined);
      }
      await sleep(100);
    }
  })();
  return {
    async close() {
      running = false;
      await loop;
    },
  };
}
