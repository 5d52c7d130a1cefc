import { eventually } from '@mmp/platform/testing';
import { api } from './http.js';
import { payOnHostedPage } from './shopper.js';

export type Timeline = {
  status: string;
  events: { type: string; railId?: string; failureCode?: string }[];
};

/**
 * A merchant's sandbox payment paid on the hosted page with `phone`; `read` shows it with
 * its timeline.
 */
export async function paySandbox(baseUrl: string, secretKey: string, phone: string, amount = 5000) {
  const merchant = api(baseUrl, secretKey);
  const payment = await merchant<{ token: string; paymentUrl: string }>('POST', '/v1/payments', {
    amount,
    description: `sandbox payment from ${phone}`,
  });
  await payOnHostedPage(baseUrl, payment.body, phone);
  const read = async () =>
    (await merchant<Timeline>('GET', `/v1/payments/${payment.body.token}?expand[]=events`)).body;
  return { token: payment.body.token, read };
}

/** The rails routing chose for a payment, in order (a failover adds one). */
export function routedRails(timeline: Timeline): (string | undefined)[] {
  return timeline.events.filter((event) => event.type === 'routing.decided').map((event) => event.railId);
}

/** A payment once COMPLETED or FAILED: its status, failure code and the rails it was routed to. */
export async function outcomeOf(read: () => Promise<Timeline>) {
  const done = await eventually(async () => {
    const timeline = await read();
    return ['COMPLETED', 'FAILED'].includes(timeline.status) && timeline;
  }, 30_000);
  const failed = done.events.find((event) => event.type === 'payment.failed');
  return { status: done.status, failureCode: failed?.failureCode ?? null, railIds: routedRails(done) };
}
