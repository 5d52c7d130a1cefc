import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPayment,
  eventually,
  execution,
  failure,
  initiated as initiatedBy,
  merchant,
  PUBLIC_URL,
  settlement,
  timeline,
  usePaymentsHarness,
} from './support.js';

const h = usePaymentsHarness();
const actor = merchant();

async function status(token: string) {
  return (await timeline(h, token, actor)).status;
}

const initiated = (body: Record<string, unknown> = {}) => initiatedBy(h, actor, body);

/** provider-router's settlement of `payment` as `outcome`, once the payment shows that status. */
async function settle(
  payment: { id: string; token: string },
  outcome: 'COMPLETED' | 'FAILED' | 'REFUNDED',
  extra: Parameters<typeof settlement>[2] = {},
) {
  await h.publish('settlement.received', settlement(payment.id, outcome, extra));
  await eventually(async () => (await status(payment.token)) === outcome);
}

const ORANGE = { paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' } as const;

describe('initiate', () => {
  it('records the payer and emits payment.initiated with the execution, once', async () => {
    const payment = await createPayment(h, actor);
    const reply = await h.checkout.initiate({
      token: payment.token,
      paymentMethod: 'ORANGE_MONEY',
      phone: '+237 6 90 00 00 01',
    });
    expect(reply).toMatchObject({
      payment: {
        token: payment.token,
        status: 'PENDING',
        paymentMethod: 'ORANGE_MONEY',
        payerPhone: '+237690000001',
      },
    });
    const [event] = await eventually(async () => {
      const found = h.eventsOf(payment.id, 'payment.initiated');
      return found.length === 1 && found;
    });
    expect(event!.data).toMatchObject({
      execution: { network: 'ORANGE_MONEY', phone: '+237690000001', country: 'CM' },
    });
    // The same choice again (an answer links-checkout lost) answers the same payment…
    const again = await h.checkout.initiate({
      token: payment.token,
      paymentMethod: 'ORANGE_MONEY',
      phone: '690000001',
    });
    expect(again.payment).toMatchObject({ id: payment.id, payerPhone: '+237690000001' });
    // …another choice is refused: one order per payment.
    for (const other of [
      { paymentMethod: 'ORANGE_MONEY', phone: '+237690000002' },
      { paymentMethod: 'MTN_MOMO', phone: '+237670000001' },
    ] as const) {
      const refused = await failure(h.checkout.initiate({ token: payment.token, ...other }));
      expect(refused).toMatchObject({ code: 'invalid_state', status: 409 });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.eventsOf(payment.id, 'payment.initiated')).toHaveLength(1);
  });

  it('makes one order for concurrent initiations', async () => {
    const payment = await createPayment(h, actor);
    const choices = Array.from({ length: 5 }, (_, i) =>
      i < 3
        ? { paymentMethod: 'MTN_MOMO', phone: '+237670000001' }
        : { paymentMethod: 'MTN_MOMO', phone: '+237670000002' },
    ) as { paymentMethod: 'MTN_MOMO'; phone: string }[];
    const results = await Promise.allSettled(
      choices.map((choice) => h.checkout.initiate({ token: payment.token, ...choice })),
    );
    const answered = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.payment.payerPhone] : []));
    // Whichever number won, only initiations with that number are answered, all with one payment.
    expect(new Set(answered).size).toBe(1);
    expect(answered.length).toBe(answered[0] === '+237670000001' ? 3 : 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.eventsOf(payment.id, 'payment.initiated')).toHaveLength(1);
  });

  it('refuses a phone of another network or an invalid number with invalid_phone', async () => {
    const payment = await createPayment(h, actor);
    for (const [paymentMethod, phone] of [
      ['MTN_MOMO', '+237690000001'],
      ['ORANGE_MONEY', '12'],
      ['ORANGE_MONEY', '+2250707000001'],
    ] as const) {
      const error = await failure(h.checkout.initiate({ token: payment.token, paymentMethod, phone }));
      expect(error.code).toBe('invalid_phone');
      expect(error.status).toBe(400);
    }
  });

  it('refuses cancelled and expired payments with their codes, and unknown tokens with 404', async () => {
    const cancelled = await createPayment(h, actor);
    await h.call('cancel', { params: { token: cancelled.token } }, actor);
    expect((await failure(h.checkout.initiate({ token: cancelled.token, ...ORANGE }))).code).toBe(
      'payment_cancelled',
    );
    expect((await failure(h.checkout.initiate({ token: 'pay_nothing', ...ORANGE }))).code).toBe(
      'resource_not_found',
    );
    const invalid = await failure(
      h.checkout.initiate({ token: cancelled.token, paymentMethod: 'VISA' as 'WAVE', phone: '1' }),
    );
    expect(invalid.code).toBe('validation_error');
  });

  it('is internal: a merchant key cannot call it', async () => {
    const payment = await createPayment(h, actor);
    const error = await failure(h.checkout.initiate({ token: payment.token, ...ORANGE }, actor));
    expect(error.code).toBe('insufficient_permissions');
  });

  it('refuses a cancel once the payer initiated', async () => {
    const payment = await initiated();
    expect((await h.callError('cancel', { params: { token: payment.token } }, actor)).code).toBe(
      'invalid_state',
    );
  });
});

describe('lifecycle events', () => {
  it('goes PENDING → PROCESSING → COMPLETED from execution and settlement events', async () => {
    const payment = await initiated();
    await h.publish('execution.accepted', execution(payment.id));
    await eventually(async () => (await status(payment.token)) === 'PROCESSING');
    await settle(payment, 'COMPLETED');
    const full = await timeline(h, payment.token, actor);
    expect(full.completedAt).toEqual(expect.any(String));
    expect(full.events.map((e) => e.type)).toEqual([
      'payment.created',
      'payment.initiated',
      'payment.processing',
      'payment.completed',
    ]);
    await eventually(async () => h.eventsOf(payment.id, 'payment.completed').length === 1);
  });

  it('fails with the failure code of execution.failed', async () => {
    const payment = await initiated();
    await h.publish('execution.failed', {
      ...execution(payment.id),
      code: 'provider_unavailable',
      reason: 'no rail',
    });
    await eventually(async () => (await status(payment.token)) === 'FAILED');
    const event = await eventually(async () => h.eventsOf(payment.id, 'payment.failed')[0]);
    expect(event.data).toMatchObject({ payment: { failureCode: 'provider_unavailable' } });
    // The merchant reads why on the timeline, in plain words (the router's own reason stays internal).
    const full = await timeline(h, payment.token, actor);
    expect(full.events.at(-1)).toEqual({
      id: event.id,
      type: 'payment.failed',
      createdAt: expect.any(String),
      failureCode: 'provider_unavailable',
      failureMessage: 'No mobile money provider could take the payment.',
    });
    expect(full.events.slice(0, -1).every((e) => !('failureCode' in e))).toBe(true);
    // The payment itself says why, in the same words.
    expect(full).toMatchObject({
      failureCode: 'provider_unavailable',
      failureMessage: 'No mobile money provider could take the payment.',
    });
  });

  it('fails with the settlement failure code', async () => {
    const payment = await initiated();
    await settle(payment, 'FAILED', { failureCode: 'insufficient_balance' });
    const event = await eventually(async () => h.eventsOf(payment.id, 'payment.failed')[0]);
    expect(event.data).toMatchObject({
      payment: {
        status: 'FAILED',
        failureCode: 'insufficient_balance',
        failureReason: "The payer's wallet balance is too low.",
      },
    });
  });

  it('forgets an earlier failure once money moved after all', async () => {
    const payment = await initiated();
    await settle(payment, 'FAILED', { failureCode: 'insufficient_balance' });
    await h.publish('settlement.received', settlement(payment.id, 'COMPLETED'));
    const event = await eventually(async () => h.eventsOf(payment.id, 'payment.completed')[0]);
    expect(event.data).toMatchObject({ payment: { failureCode: null, failureReason: null } });
    const full = await timeline(h, payment.token, actor);
    expect(full.events.find((e) => e.type === 'payment.failed')?.failureCode).toBe('insufficient_balance');
  });

  it('never downgrades COMPLETED on a FAILED settlement, and records the anomaly', async () => {
    const payment = await initiated();
    await settle(payment, 'COMPLETED');
    await h.publish('settlement.received', settlement(payment.id, 'FAILED'));
    const events = await eventually(async () => {
      const body = await timeline(h, payment.token, actor);
      return body.events.some((e) => e.type === 'reconciliation.anomaly') && body.events;
    });
    expect(await status(payment.token)).toBe('COMPLETED');
    expect(events.at(-1)!.type).toBe('reconciliation.anomaly');
    expect(h.eventsOf(payment.id, 'payment.failed')).toHaveLength(0);
  });

  it('completes a CANCELLED payment on a COMPLETED settlement, as an anomaly', async () => {
    const payment = await createPayment(h, actor);
    await h.call('cancel', { params: { token: payment.token } }, actor);
    await settle(payment, 'COMPLETED');
    const body = await timeline(h, payment.token, actor);
    expect(body.events.map((e) => e.type)).toEqual([
      'payment.created',
      'payment.cancelled',
      'payment.completed',
      'reconciliation.anomaly',
    ]);
  });

  it('refunds a completed payment on a REFUNDED settlement', async () => {
    const payment = await initiated();
    await settle(payment, 'COMPLETED');
    await settle(payment, 'REFUNDED');
  });

  it('applies a redelivered settlement once', async () => {
    const payment = await initiated();
    const event = settlement(payment.id, 'COMPLETED');
    await h.publish('settlement.received', event);
    await h.publish('settlement.received', event);
    await eventually(async () => (await status(payment.token)) === 'COMPLETED');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.eventsOf(payment.id, 'payment.completed')).toHaveLength(1);
  });
});

describe('internal operations for checkout', () => {
  const sessionBody = (checkoutSessionId: string) => ({
    checkoutSessionId,
    projectId: actor.projectId,
    livemode: false,
    amount: 1500,
    currency: 'XAF' as const,
    description: 'Link payment',
    returnUrl: 'https://shop.example/ok',
    cancelUrl: null,
    customer: { email: 'a@example.com', phone: null },
    metadata: { size: 'M' },
  });

  it('creates one payment per checkout session and reads it back by token or id', async () => {
    const sessionId = `cs_${Math.random().toString(36).slice(2)}`;
    const first = await h.checkout.createForSession(sessionBody(sessionId));
    const again = await h.checkout.createForSession(sessionBody(sessionId));
    expect(again).toMatchObject({ id: first.id });
    expect(first).toMatchObject({
      checkoutSessionId: sessionId,
      status: 'PENDING',
      amount: 1500,
      payerEmail: 'a@example.com',
      paymentUrl: `${PUBLIC_URL}/checkout/${sessionId}`,
    });
    for (const body of [{ token: first.token }, { id: first.id }]) {
      expect(await h.checkout.retrieve(body)).toMatchObject({
        id: first.id,
        paymentUrl: `${PUBLIC_URL}/checkout/${sessionId}`,
      });
    }
    expect((await failure(h.checkout.retrieve({ token: 'pay_none' }))).code).toBe('resource_not_found');
    expect((await failure(h.checkout.createForSession({ ...sessionBody('cs_x'), amount: 10 }))).code).toBe(
      'invalid_amount',
    );
    expect((await failure(h.checkout.createForSession(sessionBody('cs_y'), actor))).code).toBe(
      'insufficient_permissions',
    );
  });

  it('answers by checkout session whether that session has a payment', async () => {
    const sessionId = `cs_${Math.random().toString(36).slice(2)}`;
    const ask = { checkoutSessionId: sessionId };
    expect((await failure(h.checkout.retrieve(ask))).code).toBe('resource_not_found');
    const created = await h.checkout.createForSession(sessionBody(sessionId));
    expect(await h.checkout.retrieve(ask)).toMatchObject({
      id: created.id,
      checkoutSessionId: sessionId,
      status: 'PENDING',
      paymentMethod: 'UNKNOWN',
    });
    expect((await failure(h.checkout.retrieve(ask, actor))).code).toBe('insufficient_permissions');
  });

  it('cancels for the payer while open, even once initiated, and refuses afterwards', async () => {
    const payment = await initiated();
    const cancelled = await h.checkout.cancel({ token: payment.token });
    expect(cancelled).toMatchObject({ status: 'CANCELLED', failureCode: 'payment_cancelled' });
    expect((await failure(h.checkout.cancel({ token: payment.token }))).code).toBe('invalid_state');
    expect(
      (await failure(h.checkout.cancel({ token: payment.token, checkoutSessionId: 'cs_other' }))).code,
    ).toBe('resource_not_found');
  });
});

describe('verify', () => {
  beforeAll(() => h.serveRouter());
  afterAll(() => h.stopRouter());

  it('applies a settlement provider-router knows of and returns the full payment', async () => {
    const payment = await initiated();
    h.orderStatus.set(payment.id, {
      order: { orderKey: 'pexec_1', status: 'ACCEPTED', railId: 'r', providerId: 'p' },
      settlement: settlement(payment.id, 'COMPLETED'),
    });
    const reply = await h.call('verify', { params: { token: payment.token } }, actor);
    expect(reply.body).toMatchObject({
      token: payment.token,
      status: 'COMPLETED',
      completedAt: expect.any(String),
    });
    const again = await h.call('verify', { params: { token: payment.token } }, actor);
    expect(again.body).toMatchObject({ status: 'COMPLETED' });
    await eventually(async () => h.eventsOf(payment.id, 'payment.completed').length === 1);
  });

  it('moves a payment to PROCESSING when provider-router says a rail accepted its order', async () => {
    const payment = await initiated();
    h.orderStatus.set(payment.id, {
      order: { orderKey: 'pexec_2', status: 'ACCEPTED', railId: 'r', providerId: 'p', decisions: [] },
      settlement: null,
    });
    const reply = await h.call('verify', { params: { token: payment.token } }, actor);
    expect(reply.body).toMatchObject({ status: 'PROCESSING' });
    // The event that was missed arrives after all: nothing moves twice.
    await h.publish('execution.accepted', { ...execution(payment.id), orderKey: 'pexec_2' });
    await h.call('verify', { params: { token: payment.token } }, actor);
    await eventually(async () => h.eventsOf(payment.id, 'payment.processing').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.eventsOf(payment.id, 'payment.processing')).toHaveLength(1);
  });

  it('fails a payment with the code of an order no rail could take, and tells the merchant why', async () => {
    const payment = await initiated();
    h.orderStatus.set(payment.id, {
      order: {
        orderKey: 'pexec_3',
        status: 'FAILED',
        railId: 'r',
        providerId: 'p',
        failureCode: 'provider_timeout',
        expiresAt: new Date().toISOString(),
        decisions: [{ at: new Date().toISOString(), railId: 'r', action: 'failed', reason: 'TIMEOUT' }],
      },
      settlement: null,
    });
    const reply = await h.call('verify', { params: { token: payment.token } }, actor);
    expect(reply.body).toMatchObject({ status: 'FAILED' });
    const event = await eventually(async () => h.eventsOf(payment.id, 'payment.failed')[0]);
    expect(event.data).toMatchObject({
      payment: { failureCode: 'provider_timeout', failureReason: expect.any(String) },
    });
    const full = await timeline(h, payment.token, actor);
    expect(full.events.at(-1)).toMatchObject({ type: 'payment.failed', failureCode: 'provider_timeout' });
  });

  it('changes nothing while the order is still being routed', async () => {
    const payment = await initiated();
    h.orderStatus.set(payment.id, {
      order: { orderKey: 'pexec_4', status: 'ROUTED', railId: 'r', providerId: 'p' },
      settlement: null,
    });
    const reply = await h.call('verify', { params: { token: payment.token } }, actor);
    expect(reply.body).toMatchObject({ status: 'PENDING' });
  });
});

describe('verify while provider-router is away', () => {
  it('answers the stored payment', async () => {
    const payment = await createPayment(h, actor);
    const reply = await h.call('verify', { params: { token: payment.token } }, actor);
    expect(reply.body).toMatchObject({ token: payment.token, status: 'PENDING' });
  });

  it('answers 404 for a payment of another environment', async () => {
    const payment = await createPayment(h, actor);
    expect(
      (await h.callError('verify', { params: { token: payment.token } }, { ...actor, livemode: true })).code,
    ).toBe('resource_not_found');
  });
});
