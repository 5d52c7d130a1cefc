import { describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { appError, newCheckoutSessionId, type PaymentSnapshot } from '@mmp/protocol';
import { PROJECT, PUBLIC_URL, merchant, snapshot, useHarness } from './harness.js';

type Session = Record<string, unknown> & {
  id: string;
  url: string;
  status: string;
  paymentId: string | null;
};
type Status = {
  id: string;
  status: string;
  paymentStatus: string | null;
  failureCode: string | null;
  redirectUrl: string | null;
};

const h = useHarness();

const ORANGE = { paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' };

async function merchantSession(body: Record<string, unknown> = {}) {
  return h.ok<Session>(
    'sessions.create',
    {
      body: {
        amount: 5000,
        successUrl: 'https://shop.example/ok',
        cancelUrl: 'https://shop.example/ko',
        ...body,
      },
    },
    merchant(),
    201,
  );
}
const status = (id: string) => h.ok<Status>('sessions.status', { params: { id } });
const pay = (id: string, body: unknown = ORANGE) => h.ok<Status>('sessions.pay', { params: { id }, body });
const paymentOf = (sessionId: string) =>
  [...h.payments.values()].find((p) => p.checkoutSessionId === sessionId) as PaymentSnapshot;
async function until(id: string, state: string) {
  await eventually(async () => (await status(id)).status === state);
}

/** A merchant's payment as payments announces it, with the session id it minted. */
function merchantPayment(overrides: Partial<PaymentSnapshot> = {}): PaymentSnapshot {
  const id = newCheckoutSessionId();
  const payment = snapshot({
    checkoutSessionId: id,
    paymentUrl: `${PUBLIC_URL}/checkout/${id}`,
    expiresAt: new Date(Date.now() + 900_000).toISOString(),
    ...overrides,
  });
  h.payments.set(payment.token, payment);
  return payment;
}

/** The session of a merchant's payment, made when its payer first comes. */
async function opened(overrides: Partial<PaymentSnapshot> = {}) {
  const payment = merchantPayment(overrides);
  await status(payment.checkoutSessionId!);
  return { payment, id: payment.checkoutSessionId! };
}

describe('creating sessions', () => {
  it('makes the session of a merchant payment when its payer first comes, from payments, never from payment.created', async () => {
    const payment = merchantPayment({
      amount: 4200,
      description: 'Commande 42',
      returnUrl: 'https://shop.example/merci',
      payerEmail: 'a@b.cm',
    });
    const id = payment.checkoutSessionId!;
    const asked = h.calls.retrieve.length;
    // A payment no one looks at costs this service nothing.
    await h.paymentEvent('payment.created', payment);
    await h.paymentEventsApplied();
    expect(h.calls.retrieve.slice(asked)).toEqual([]);

    const page = await h.call('pages.checkout', { params: { sessionId: id } });
    expect(page.status).toBe(200);
    expect(h.calls.retrieve.slice(asked)).toEqual([{ checkoutSessionId: id }]);
    const session = await h.ok<Session>('sessions.retrieve', { params: { id } });
    expect(session).toMatchObject({
      id,
      url: payment.paymentUrl,
      paymentId: payment.id,
      amount: 4200,
      description: 'Commande 42',
      successUrl: 'https://shop.example/merci',
      cancelUrl: null,
      status: 'idle',
      customer: { email: 'a@b.cm', phone: null },
      merchantName: PROJECT.displayName,
      retryable: false,
    });
    // Made once: payments is not asked again, and a late payment.created changes nothing.
    await h.paymentEvent('payment.created', { ...payment, amount: 1 });
    await h.paymentEventsApplied();
    expect(await h.ok<Session>('sessions.retrieve', { params: { id } })).toEqual(session);
    expect(h.calls.retrieve).toHaveLength(asked + 1);
    // A session id payments does not know either is not found.
    await h.notFound('sessions.status', { params: { id: newCheckoutSessionId() } });
  });

  it('opens the session of a merchant payment from its event once it is under way, without asking payments', async () => {
    const payment = merchantPayment({ amount: 3100 });
    const id = payment.checkoutSessionId!;
    const asked = h.calls.retrieve.length;
    const underWay = { ...payment, paymentMethod: 'ORANGE_MONEY', payerPhone: '+237690000001' };
    await h.paymentEvent('payment.initiated', underWay);
    await h.paymentEventsApplied();
    expect(await status(id)).toMatchObject({ status: 'processing', paymentStatus: 'PENDING' });
    expect(h.calls.retrieve.slice(asked)).toEqual([]);
    await h.paymentEvent('payment.processing', { ...underWay, status: 'PROCESSING' });
    await until(id, 'pending_ussd');
    await h.paymentEvent('payment.completed', { ...underWay, status: 'COMPLETED' });
    await until(id, 'success');
    expect(h.calls.retrieve.slice(asked)).toEqual([]);
  });

  it('makes no session for a payment that ended before anyone opened it; its page shows the end', async () => {
    const payment = merchantPayment();
    const id = payment.checkoutSessionId!;
    const asked = h.calls.retrieve.length;
    const expired = { ...payment, status: 'EXPIRED' };
    await h.paymentEvent('payment.expired', expired);
    await h.paymentEventsApplied();
    expect(h.calls.retrieve.slice(asked)).toEqual([]);
    h.payments.set(payment.token, expired);
    expect((await status(id)).status).toBe('expired');
    expect(h.calls.retrieve.slice(asked)).toEqual([{ checkoutSessionId: id }]);
  });

  it('creates a merchant session and reads it publicly with every field', async () => {
    const created = await merchantSession({ description: 'Abonnement', customer: { email: 'c@d.cm' } });
    const session = await h.ok<Session>('sessions.retrieve', { params: { id: created.id } });
    expect(session).toMatchObject({
      id: created.id,
      url: `${PUBLIC_URL}/checkout/${created.id}`,
      amount: 5000,
      currency: 'XAF',
      description: 'Abonnement',
      status: 'idle',
      merchantName: PROJECT.displayName,
      merchantLogo: PROJECT.logoUrl,
      successUrl: 'https://shop.example/ok',
      cancelUrl: 'https://shop.example/ko',
      paymentMethod: null,
      paymentId: null,
      customer: { email: 'c@d.cm', phone: null },
      livemode: false,
      operators: ['ORANGE_MONEY', 'MTN_MOMO'],
    });
    expect(Date.parse(session.expiresAt as string) - Date.parse(session.createdAt as string)).toBe(900_000);
  });

  it('refuses bad merchant input and unknown sessions', async () => {
    const refusals: [unknown, string, number][] = [
      [{ amount: 10 }, 'invalid_amount', 400],
      [{}, 'missing_required_field', 400],
      [{ amount: 1000, currency: 'EUR' }, 'invalid_currency', 400],
      [{ amount: 1000, successUrl: 'javascript:alert(1)' }, 'validation_error', 422],
    ];
    for (const [body, code, httpStatus] of refusals)
      await h.fails('sessions.create', { body }, code, httpStatus, merchant());
    await h.fails('sessions.create', { body: { amount: 1000 } }, 'insufficient_permissions', 403);
    await h.notFound('sessions.retrieve', { params: { id: 'cs_doesnotexist000000000000' } });
    await h.notFound('sessions.status', { params: { id: 'nope' } });
  });

  it('lists the operators of the currency', async () => {
    const xof = await merchantSession({ currency: 'XOF' });
    expect((await h.ok<Session>('sessions.retrieve', { params: { id: xof.id } })).operators).toEqual([
      'ORANGE_MONEY',
      'MTN_MOMO',
      'MOOV_MONEY',
      'WAVE',
    ]);
  });
});

describe('paying a session', () => {
  it('runs idle → processing → pending_ussd → success, driven by payment events', async () => {
    const session = await merchantSession();
    const paid = await pay(session.id);
    expect(paid.status).toBe('processing');
    const payment = paymentOf(session.id);
    expect(h.calls.initiate.at(-1)).toEqual({
      token: payment.token,
      paymentMethod: 'ORANGE_MONEY',
      phone: '+237690000001',
    });
    await h.paymentEvent('payment.initiated', payment);
    await h.paymentEvent('payment.processing', { ...payment, status: 'PROCESSING' });
    await until(session.id, 'pending_ussd');
    await h.paymentEvent('payment.completed', { ...payment, status: 'COMPLETED' });
    await until(session.id, 'success');
    const final = await status(session.id);
    expect(final).toMatchObject({
      paymentId: payment.id,
      paymentStatus: 'COMPLETED',
      redirectUrl: 'https://shop.example/ok',
    });
    await h.fails('sessions.pay', { params: { id: session.id }, body: ORANGE }, 'invalid_state', 409);
    // A late failure never downgrades the success.
    await h.paymentEvent('payment.failed', { ...payment, status: 'FAILED' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await status(session.id)).status).toBe('success');
  });

  it('pays the payment a session was made for without creating another', async () => {
    const { payment, id } = await opened({ amount: 1500 });
    const before = h.calls.createForSession.length;
    await pay(id, { paymentMethod: 'MTN_MOMO', phone: '677 00 00 01' });
    expect(h.calls.createForSession.length).toBe(before);
    expect(h.calls.initiate.at(-1)).toEqual({
      token: payment.token,
      paymentMethod: 'MTN_MOMO',
      phone: '+237677000001',
    });
  });

  it('refuses a second pay while the first is under way', async () => {
    const session = await merchantSession();
    await pay(session.id);
    await h.fails('sessions.pay', { params: { id: session.id }, body: ORANGE }, 'invalid_state', 409);
  });

  it('checks the phone against the operator before anything else', async () => {
    const session = await merchantSession();
    const before = h.calls.initiate.length;
    const refusals = [
      [{ paymentMethod: 'ORANGE_MONEY', phone: '+237670000001' }, 'invalid_phone', 400],
      [{ paymentMethod: 'MTN_MOMO', phone: '+237690000001' }, 'invalid_phone', 400],
      [{ paymentMethod: 'ORANGE_MONEY', phone: '12345' }, 'invalid_phone', 400],
      [{ paymentMethod: 'ORANGE_MONEY', phone: '+2250700000000' }, 'invalid_phone', 400],
      [{ paymentMethod: 'WAVE', phone: '+237690000001' }, 'validation_error', 422],
      [{ paymentMethod: 'CASH', phone: '+237690000001' }, 'validation_error', 422],
      [{ paymentMethod: 'ORANGE_MONEY' }, 'missing_required_field', 400],
    ] as const;
    for (const [body, code, httpStatus] of refusals)
      await h.fails('sessions.pay', { params: { id: session.id }, body }, code, httpStatus);
    expect(h.calls.initiate.length).toBe(before);
    expect((await status(session.id)).status).toBe('idle');
  });

  it('goes back to the form when payments refuses the number, and pays on the next try', async () => {
    const session = await merchantSession();
    await h.payRefused(session.id, appError('invalid_phone', 'The operator refused this number.'));
    expect((await status(session.id)).status).toBe('idle');
    expect((await pay(session.id)).status).toBe('processing');
  });

  it('ends the session when payments says the payment expired', async () => {
    const session = await merchantSession();
    await h.payRefused(session.id, appError('payment_expired', 'The payment expired.'));
    expect((await status(session.id)).status).toBe('expired');
    await h.fails('sessions.pay', { params: { id: session.id }, body: ORANGE }, 'payment_expired', 400);
  });

  it('shows a failure with its code and reason', async () => {
    const session = await merchantSession();
    await pay(session.id);
    const payment = paymentOf(session.id);
    await h.paymentEvent('payment.failed', {
      ...payment,
      status: 'FAILED',
      failureCode: 'insufficient_balance',
      failureReason: 'Solde insuffisant',
    });
    await until(session.id, 'failed');
    expect(await status(session.id)).toMatchObject({
      failureCode: 'insufficient_balance',
      redirectUrl: null,
    });
    const view = await h.ok<Session>('sessions.retrieve', { params: { id: session.id } });
    expect(view).toMatchObject({ failureReason: 'Solde insuffisant', retryable: false });
    await h.fails('sessions.pay', { params: { id: session.id }, body: ORANGE }, 'invalid_state', 409);
  });

  it('follows expired and cancelled payments, and a completion after a cancel', async () => {
    const expiring = await merchantSession();
    await pay(expiring.id);
    await h.paymentEvent('payment.expired', { ...paymentOf(expiring.id), status: 'EXPIRED' });
    await until(expiring.id, 'expired');

    const cancelled = await merchantSession();
    await pay(cancelled.id);
    const payment = paymentOf(cancelled.id);
    await h.paymentEvent('payment.cancelled', { ...payment, status: 'CANCELLED' });
    await until(cancelled.id, 'cancelled');
    await h.paymentEvent('payment.completed', { ...payment, status: 'COMPLETED' });
    await until(cancelled.id, 'success');
  });

  it('ignores events of payments that are not the session’s', async () => {
    const session = await merchantSession();
    await pay(session.id);
    await h.paymentEvent('payment.failed', snapshot({ checkoutSessionId: session.id, status: 'FAILED' }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await status(session.id)).status).toBe('processing');
  });

  it('expires idle sessions after their time', async () => {
    const { id } = await opened({ expiresAt: new Date(Date.now() + 200).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await h.fails('sessions.pay', { params: { id }, body: ORANGE }, 'payment_expired', 400);
    expect((await status(id)).status).toBe('expired');
  });
});

describe('cancelling a session', () => {
  it('cancels an idle session and points to cancelUrl', async () => {
    const session = await merchantSession();
    const cancelled = await h.ok<Status>('sessions.cancel', { params: { id: session.id } });
    expect(cancelled).toMatchObject({ status: 'cancelled', redirectUrl: 'https://shop.example/ko' });
    await h.fails('sessions.cancel', { params: { id: session.id } }, 'payment_cancelled', 400);
    await h.fails('sessions.pay', { params: { id: session.id }, body: ORANGE }, 'payment_cancelled', 400);
  });

  it('cancels a session waiting for the USSD confirmation and asks payments to cancel too', async () => {
    const session = await merchantSession();
    await pay(session.id);
    const payment = paymentOf(session.id);
    await h.paymentEvent('payment.processing', { ...payment, status: 'PROCESSING' });
    await until(session.id, 'pending_ussd');
    await h.ok('sessions.cancel', { params: { id: session.id } });
    expect(h.calls.cancel.at(-1)).toEqual({ token: payment.token, checkoutSessionId: session.id });
  });

  it('refuses to cancel a paid session', async () => {
    const session = await merchantSession();
    await pay(session.id);
    await h.paymentEvent('payment.completed', { ...paymentOf(session.id), status: 'COMPLETED' });
    await until(session.id, 'success');
    await h.fails('sessions.cancel', { params: { id: session.id } }, 'invalid_state', 409);
  });
});
