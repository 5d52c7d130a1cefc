import { describe, expect, it } from 'vitest';
import { Payment as PaymentView } from '@mmp/protocol';
import {
  eventually,
  execution,
  initiated as initiatedBy,
  merchant,
  timeline as timelineOf,
  usePaymentsHarness,
} from './support.js';

const h = usePaymentsHarness();
const actor = merchant();
const timeline = (token: string) => timelineOf(h, token, actor);
const initiated = () => initiatedBy(h, actor);

const routed = (paymentId: string) => ({
  paymentId,
  orderKey: 'pexec_abc',
  decision: 'routed',
  railId: 'rail_1',
  providerId: 'prov_1',
  reason: 'certified rail, priority 0',
  skipped: [{ railId: 'rail_2', reason: 'circuit breaker open' }],
});

describe('routing.decided on the timeline', () => {
  it('adds the decision to the timeline without changing the payment', async () => {
    const payment = await initiated();
    const id = await h.publish('routing.decided', routed(payment.id));
    const body = await eventually(async () => {
      const read = await timeline(payment.token);
      return read.events.some((e) => e.type === 'routing.decided') && read;
    });
    expect(body.status).toBe('PENDING');
    expect(body.events.map((e) => e.type)).toEqual([
      'payment.created',
      'payment.initiated',
      'routing.decided',
    ]);
    expect(body.events[2]).toEqual({
      id,
      type: 'routing.decided',
      createdAt: expect.any(String),
      decision: 'routed',
      railId: 'rail_1',
      providerId: 'prov_1',
      reason: 'certified rail, priority 0',
      skipped: [{ railId: 'rail_2', reason: 'circuit breaker open' }],
    });
    expect(PaymentView.safeParse(body).success).toBe(true);
    // No payment.* event: nothing changed for links-checkout, customers or webhooks.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.eventsOf(payment.id).map((e) => e.type)).toEqual(['payment.created', 'payment.initiated']);
  });

  it('records a redelivered decision once', async () => {
    const payment = await initiated();
    const id = await h.publish('routing.decided', routed(payment.id));
    await h.republish('routing.decided', routed(payment.id), id);
    const failover = await h.publish('routing.decided', {
      ...routed(payment.id),
      decision: 'failover',
      railId: 'rail_2',
      providerId: 'prov_2',
      reason: 'rail_1 did not answer (TIMEOUT)',
      skipped: [],
    });
    await eventually(async () => (await timeline(payment.token)).events.some((e) => e.id === failover));
    const entries = (await timeline(payment.token)).events.filter((e) => e.type === 'routing.decided');
    expect(entries.map((e) => [e.id, e.decision])).toEqual([
      [id, 'routed'],
      [failover, 'failover'],
    ]);
  });

  it('shows decisions in the order they happened, whatever the order they arrive in', async () => {
    const payment = await initiated();
    const decidedAt = new Date().toISOString();
    await h.publish('execution.accepted', execution(payment.id, { orderKey: 'pexec_abc' }));
    await eventually(async () => (await timeline(payment.token)).status === 'PROCESSING');
    await h.publish('routing.decided', routed(payment.id), { occurredAt: decidedAt });
    const body = await eventually(async () => {
      const read = await timeline(payment.token);
      return read.events.some((e) => e.type === 'routing.decided') && read;
    });
    expect(body.events.map((e) => e.type)).toEqual([
      'payment.created',
      'payment.initiated',
      'routing.decided',
      'payment.processing',
    ]);
  });

  it('records no_rail with null rail and provider, and skips unknown payments and malformed events', async () => {
    await h.publish('routing.decided', routed('00000000-0000-4000-8000-000000000000'));
    await h.publish('routing.decided', { paymentId: 'x', decision: 'teleported' });
    const payment = await initiated();
    const id = await h.publish('routing.decided', {
      paymentId: payment.id,
      orderKey: null,
      decision: 'no_rail',
      railId: null,
      providerId: null,
      reason: 'no active rail for ORANGE_MONEY in CM',
      skipped: [],
    });
    const entry = await eventually(async () =>
      (await timeline(payment.token)).events.find((e) => e.id === id),
    );
    expect(entry).toEqual({
      id,
      type: 'routing.decided',
      createdAt: expect.any(String),
      decision: 'no_rail',
      railId: null,
      providerId: null,
      reason: 'no active rail for ORANGE_MONEY in CM',
      skipped: [],
    });
  });
});
