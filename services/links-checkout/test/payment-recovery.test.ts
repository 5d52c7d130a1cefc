import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '@mmp/platform';
import { eventually } from '@mmp/platform/testing';
import { appError, type PaymentSnapshot } from '@mmp/protocol';
import { merchant, startHarness, type Harness } from './harness.js';

/**
 * Pay attempts whose outcome was lost, over the real NATS server: payments is absent
 * (nothing answers its subjects) and then present, and links-checkout restarts in between,
 * so whatever recovers the attempt lives in the store, not in the process.
 */
const RECOVERY = {
  PAYMENT_RECOVERY_INTERVAL_MS: '100',
  PAYMENT_RECOVERY_AFTER_MS: '300',
  REQUEST_TIMEOUT_MS: '1000',
};
/** Long enough for several rounds past the bound. */
const ROUNDS = 900;
const ORANGE = { paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' };

type Link = { id: string; shortCode: string; usageCount: number };
type Session = { id: string };
type Status = { status: string; paymentId: string | null; failureCode: string | null };

let h: Harness;
afterEach(() => h?.stop());

const create = (body: unknown) => h.ok<Link>('links.create', { body }, merchant(), 201);
const start = (link: Link) =>
  h.ok<Session>('links.start', { params: { shortCode: link.shortCode }, body: {} }, undefined, 201);
const pay = (session: Session) => h.call('sessions.pay', { params: { id: session.id }, body: ORANGE });
const statusOf = (session: Session) => h.ok<Status>('sessions.status', { params: { id: session.id } });
const paysEventually = (session: Session) =>
  eventually(() =>
    pay(session).then(
      () => true,
      () => false,
    ),
  );
const asksFor = (session: Session) =>
  h.calls.retrieve.filter((c) => c.checkoutSessionId === session.id).length;

async function refusedForLink(session: Session): Promise<string> {
  const error = await h.fails(
    'sessions.pay',
    { params: { id: session.id }, body: ORANGE },
    'invalid_request',
    400,
  );
  return error.fields?.[0]?.message ?? '';
}

/** What a crash between the pay claim and the refusal's write leaves: the session in processing. */
const leftInProcessing = (session: Session) => async (store: Store) => {
  const moved = await store
    .collection('checkout_sessions')
    .findOneAndUpdate({ _id: session.id, status: 'idle' }, { $set: { status: 'processing' } });
  expect(moved).not.toBeNull();
};

describe('a pay attempt made while payments is away', () => {
  it('keeps the held use while payments cannot say, and gives it back once when it says no payment was made', async () => {
    h = await startHarness(RECOVERY, { paymentsAway: true });
    const link = await create({ name: 'Outage', amount: 1000, maxUses: 1 });
    const [a, b, c] = [await start(link), await start(link), await start(link)];
    await h.fails('sessions.pay', { params: { id: a.id }, body: ORANGE }, 'service_unavailable', 503);
    expect((await statusOf(a)).status).toBe('idle');

    // The attempt may have made a payment: nothing is given back blindly.
    await sleep(ROUNDS);
    expect(await refusedForLink(b)).toBe('link_exhausted');
    await h.restart();
    await sleep(ROUNDS);
    expect(await refusedForLink(b)).toBe('link_exhausted');

    await h.paymentsUp();
    await paysEventually(b);
    expect(asksFor(a)).toBeGreaterThan(0);
    expect(await statusOf(a)).toMatchObject({ status: 'idle', paymentId: null, failureCode: null });
    // Released once: the use B now holds stays B's, and A's recovery is over.
    const asked = asksFor(a);
    await sleep(ROUNDS);
    expect(asksFor(a)).toBe(asked);
    expect(await refusedForLink(c)).toBe('link_exhausted');
    expect(await refusedForLink(a)).toBe('link_exhausted');
    // A refusal leaves nothing unclear: c, which never tried before, is never looked up.
    await sleep(ROUNDS);
    expect(asksFor(c)).toBe(0);
  });

  it('returns a session a crash left in processing to the form, with the reason, and gives its use back', async () => {
    h = await startHarness(RECOVERY, { paymentsAway: true });
    const link = await create({ name: 'Crash', amount: 1000, maxUses: 1 });
    const [a, b] = [await start(link), await start(link)];
    await h.fails('sessions.pay', { params: { id: a.id }, body: ORANGE }, 'service_unavailable', 503);
    await h.restart(leftInProcessing(a));

    await sleep(ROUNDS);
    expect((await statusOf(a)).status).toBe('processing');
    expect(await refusedForLink(b)).toBe('link_exhausted');

    await h.paymentsUp();
    await eventually(async () => (await statusOf(a)).status === 'idle');
    expect(await statusOf(a)).toMatchObject({ paymentId: null, failureCode: 'service_unavailable' });
    expect((await pay(b)).status).toBe(200);
    // Back on the form: refused for the link now, not for a payment in progress.
    expect(await refusedForLink(a)).toBe('link_exhausted');
  });
});

describe('a pay attempt whose payment exists', () => {
  const initiateAway = () => {
    h.stand.initiate = async () => {
      throw appError('service_unavailable', 'The payments service is temporarily unavailable.');
    };
  };
  const paymentOf = (session: Session) =>
    [...h.payments.values()].find((p) => p.checkoutSessionId === session.id) as PaymentSnapshot;

  it('lets a session a crash left in processing before initiation initiate the payment it made', async () => {
    h = await startHarness(RECOVERY);
    const link = await create({ name: 'Half', amount: 1000, maxUses: 1 });
    const [a, b] = [await start(link), await start(link)];
    initiateAway();
    await h.fails('sessions.pay', { params: { id: a.id }, body: ORANGE }, 'service_unavailable', 503);
    const payment = paymentOf(a);
    // The crash came before the session stored its payment.
    await h.restart(async (store) => {
      await leftInProcessing(a)(store);
      await store
        .collection('checkout_sessions')
        .findOneAndUpdate({ _id: a.id }, { $set: { paymentId: null, paymentToken: null } });
    });

    await eventually(async () => (await statusOf(a)).status === 'idle');
    expect(await statusOf(a)).toMatchObject({ paymentId: payment.id, failureCode: null });
    // The payment is under way: its use stays held until it ends.
    expect(await refusedForLink(b)).toBe('link_exhausted');
    h.stand.initiate = async (body) => ({ payment: h.payments.get(body.token) });
    expect((await pay(a)).status).toBe(200);
    expect(h.calls.initiate.at(-1)?.token).toBe(payment.token);
    expect(h.calls.createForSession).toHaveLength(1);
  });

  it('applies the end of a payment whose event never came', async () => {
    h = await startHarness(RECOVERY);
    const link = await create({ name: 'Lost', amount: 1000, maxUses: 1 });
    const [a, b] = [await start(link), await start(link)];
    initiateAway();
    await h.fails('sessions.pay', { params: { id: a.id }, body: ORANGE }, 'service_unavailable', 503);
    const payment = paymentOf(a);
    h.payments.set(payment.token, { ...payment, status: 'EXPIRED', failureCode: 'payment_expired' });

    await eventually(async () => (await statusOf(a)).status === 'expired');
    h.stand.initiate = async (body) => ({ payment: h.payments.get(body.token) });
    expect((await pay(b)).status).toBe(200);
  });
});
