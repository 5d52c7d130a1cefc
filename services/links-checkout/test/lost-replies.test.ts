import { describe, expect, it } from 'vitest';
import type { Store } from '@mmp/platform';
import { eventually } from '@mmp/platform/testing';
import { appError, type PaymentSnapshot } from '@mmp/protocol';
import { merchant, useHarness, type Harness } from './harness.js';

/**
 * Pay attempts whose answer from payments never came (payments away or slow, or this
 * service's process gone mid-attempt), over the real NATS server. Nothing is looked up
 * later to repair them: a use of a link is held only once the session's payment exists, so
 * that payment's own events give it back, and an attempt whose process died leaves its
 * session on the form.
 */
const ORANGE = { paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' };

const unavailable = () => appError('service_unavailable', 'The payments service is temporarily unavailable.');

type Link = { id: string; shortCode: string; usageCount: number };
type Session = { id: string };
type Status = { status: string; paymentId: string | null; failureCode: string | null };

function payer(h: Harness) {
  const statusOf = (session: Session) => h.ok<Status>('sessions.status', { params: { id: session.id } });
  return {
    link: (body: unknown) => h.ok<Link>('links.create', { body }, merchant(), 201),
    start: (link: Link) =>
      h.ok<Session>('links.start', { params: { shortCode: link.shortCode }, body: {} }, undefined, 201),
    pay: (session: Session) => h.call('sessions.pay', { params: { id: session.id }, body: ORANGE }),
    statusOf,
    /** The reason a pay is refused for the link (what the page translates). */
    async refusedForLink(session: Session): Promise<string> {
      const error = await h.fails(
        'sessions.pay',
        { params: { id: session.id }, body: ORANGE },
        'invalid_request',
        400,
      );
      return error.fields?.[0]?.message ?? '';
    },
    /** Pays the session while payments' answer to the initiation is lost on the way. */
    initiationAnswerLost: (session: Session) => h.payRefused(session.id, unavailable()),
    paymentOf: (session: Session) =>
      [...h.payments.values()].find((p) => p.checkoutSessionId === session.id) as PaymentSnapshot,
    /** What a process that died mid-attempt leaves: the session claimed, its attempt long over. */
    diedMidAttempt:
      (session: Session, changes: Record<string, unknown> = {}) =>
      async (store: Store) => {
        const moved = await store.collection('checkout_sessions').findOneAndUpdate(
          { _id: session.id },
          {
            $set: {
              status: 'processing',
              attemptUntil: new Date(Date.now() - 1000).toISOString(),
              ...changes,
            },
          },
        );
        expect(moved).not.toBeNull();
      },
  };
}

describe('a pay attempt while payments is away', () => {
  const h = useHarness({ REQUEST_TIMEOUT_MS: '1000' }, { paymentsAway: true });
  const p = payer(h);

  it('leaves the session on the form and holds no use of its link, so the next payer is not kept waiting', async () => {
    const link = await p.link({ name: 'Outage', amount: 1000, maxUses: 1 });
    const [a, b] = [await p.start(link), await p.start(link)];
    await h.fails('sessions.pay', { params: { id: a.id }, body: ORANGE }, 'service_unavailable', 503);
    expect(await p.statusOf(a)).toMatchObject({ status: 'idle', paymentId: null, failureCode: null });

    await h.paymentsUp();
    expect((await p.pay(b)).status).toBe(200);
    expect(await p.refusedForLink(a)).toBe('link_exhausted');
    await h.paymentsDown();
  });

  it('returns a session whose process died mid-attempt to the form, with the reason, while payments is still away', async () => {
    const link = await p.link({ name: 'Crash', amount: 1000, maxUses: 1 });
    const [a, b] = [await p.start(link), await p.start(link)];
    await h.restart(p.diedMidAttempt(a));
    expect(await p.statusOf(a)).toMatchObject({
      status: 'idle',
      paymentId: null,
      failureCode: 'service_unavailable',
    });
    // It held nothing: the link's one use is there for whoever pays first.
    await h.paymentsUp();
    expect((await p.pay(b)).status).toBe(200);
    expect(await p.refusedForLink(a)).toBe('link_exhausted');
    expect(h.calls.retrieve).toEqual([]);
  });
});

describe('a pay attempt whose payment was made', () => {
  const h = useHarness();
  const p = payer(h);

  /**
   * Two payers of a one-use link: the first one's pay made a payment, then its process died
   * before its session stored it. The payment exists, so the use stays held until it ends.
   */
  async function paymentNotStored(name: string) {
    const link = await p.link({ name, amount: 1000, maxUses: 1 });
    const [a, b] = [await p.start(link), await p.start(link)];
    await p.initiationAnswerLost(a);
    const payment = p.paymentOf(a);
    await h.restart(p.diedMidAttempt(a, { paymentId: null, paymentToken: null }));
    expect(await p.refusedForLink(b)).toBe('link_exhausted');
    return { a, b, payment };
  }

  it('pays, after its process died before it stored the payment, the payment payments made', async () => {
    const { a, payment } = await paymentNotStored('Half');
    expect(await p.statusOf(a)).toMatchObject({ status: 'idle', failureCode: 'service_unavailable' });
    // payments makes one payment per session: asked again, it answers with the one it made.
    expect((await p.pay(a)).status).toBe(200);
    expect(h.calls.createForSession).toHaveLength(2);
    expect(h.calls.initiate.at(-1)?.token).toBe(payment.token);
    expect((await p.statusOf(a)).paymentId).toBe(payment.id);
  });

  it("learns the payment it never stored from that payment's event, and gives the use back when it ends", async () => {
    const { a, b, payment } = await paymentNotStored('Learnt');
    await h.paymentEvent('payment.expired', { ...payment, status: 'EXPIRED' });
    await eventually(async () => (await p.statusOf(a)).status === 'expired');
    expect((await p.statusOf(a)).paymentId).toBe(payment.id);
    expect((await p.pay(b)).status).toBe(200);
  });

  it('gives the use back when the payment whose initiation answer was lost expires', async () => {
    const link = await p.link({ name: 'Lost', amount: 1000, maxUses: 1 });
    const [a, b] = [await p.start(link), await p.start(link)];
    await p.initiationAnswerLost(a);
    expect((await p.statusOf(a)).status).toBe('idle');
    // payments may have initiated it: the use stays held until the payment says how it ended.
    expect(await p.refusedForLink(b)).toBe('link_exhausted');
    await h.paymentEvent('payment.expired', { ...p.paymentOf(a), status: 'EXPIRED' });
    await eventually(async () => (await p.statusOf(a)).status === 'expired');
    expect((await p.pay(b)).status).toBe(200);
  });

  it('follows a payment that was initiated though its answer was lost, and initiates it once on a retry', async () => {
    const link = await p.link({ name: 'Retry', amount: 1000 });
    const [a, b] = [await p.start(link), await p.start(link)];
    h.stand.initiate = async (body) => {
      h.stand.reset();
      await h.stand.initiate(body);
      throw unavailable();
    };
    await h.fails('sessions.pay', { params: { id: a.id }, body: ORANGE }, 'service_unavailable', 503);
    // The same choice again: payments answers the payment it initiated, nothing twice.
    expect((await p.pay(a)).status).toBe(200);
    expect(h.calls.initiate.filter((call) => call.token === p.paymentOf(a).token)).toHaveLength(2);

    await p.initiationAnswerLost(b);
    await h.paymentEvent('payment.initiated', { ...p.paymentOf(b), paymentMethod: 'ORANGE_MONEY' });
    await eventually(async () => (await p.statusOf(b)).status === 'processing');
    await h.fails('sessions.pay', { params: { id: b.id }, body: ORANGE }, 'invalid_state', 409);
  });

  it('answers a same-key retry of a pay that took effect with the session as it stands, and any other pay 409', async () => {
    const link = await p.link({ name: 'Keyed', amount: 1000 });
    const [a, b, c] = [await p.start(link), await p.start(link), await p.start(link)];
    const keyed = (session: Session, key: string, body = ORANGE) => ({
      params: { id: session.id },
      body,
      headers: { 'idempotency-key': key },
    });
    const answerLost = () => {
      h.stand.initiate = async (body) => {
        h.stand.reset();
        await h.stand.initiate(body);
        throw unavailable();
      };
    };
    answerLost();
    await h.fails('sessions.pay', keyed(a, 'a-1'), 'service_unavailable', 503);
    await h.paymentEvent('payment.initiated', { ...p.paymentOf(a), paymentMethod: 'ORANGE_MONEY' });
    await eventually(async () => (await p.statusOf(a)).status === 'processing');
    expect(await h.ok('sessions.pay', keyed(a, 'a-1'), undefined, 200)).toMatchObject({
      status: 'processing',
    });
    await h.fails('sessions.pay', keyed(a, 'a-2'), 'invalid_state', 409);
    await h.fails('sessions.pay', { params: { id: a.id }, body: ORANGE }, 'invalid_state', 409);
    expect(h.calls.initiate.filter((call) => call.token === p.paymentOf(a).token)).toHaveLength(1);

    // The prompt reached the phone before the retry came: the retry sees it waiting there.
    answerLost();
    await h.fails('sessions.pay', keyed(c, 'c-1'), 'service_unavailable', 503);
    await h.paymentEvent('payment.initiated', { ...p.paymentOf(c), paymentMethod: 'ORANGE_MONEY' });
    await h.paymentEvent('payment.processing', {
      ...p.paymentOf(c),
      status: 'PROCESSING',
      paymentMethod: 'ORANGE_MONEY',
    });
    await eventually(async () => (await p.statusOf(c)).status === 'pending_ussd');
    expect(await h.ok('sessions.pay', keyed(c, 'c-1'), undefined, 200)).toMatchObject({
      status: 'pending_ussd',
    });

    // Paid before the retry came: the retry hears it is paid, not that it is already paid.
    answerLost();
    await h.fails('sessions.pay', keyed(b, 'b-1'), 'service_unavailable', 503);
    await h.paymentEvent('payment.initiated', { ...p.paymentOf(b), paymentMethod: 'ORANGE_MONEY' });
    await h.paymentEvent('payment.completed', { ...p.paymentOf(b), status: 'COMPLETED' });
    await eventually(async () => (await p.statusOf(b)).status === 'success');
    expect(await h.ok('sessions.pay', keyed(b, 'b-1'), undefined, 200)).toMatchObject({ status: 'success' });
  });
});
