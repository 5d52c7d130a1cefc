import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { eventually } from '@mmp/platform/testing';
import { appError, isAppError, type PaymentSnapshot } from '@mmp/protocol';
import { merchant, useHarness } from './harness.js';

type Link = { id: string; shortCode: string; usageCount: number; maxUses: number | null };
type Session = { id: string; status: string };

const h = useHarness();

const ORANGE = { paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' };
const create = (body: unknown) => h.ok<Link>('links.create', { body }, merchant(), 201);
const start = (link: Link) =>
  h.ok<Session>('links.start', { params: { shortCode: link.shortCode }, body: {} }, undefined, 201);
const pay = (session: Session) => h.call('sessions.pay', { params: { id: session.id }, body: ORANGE });
const statusOf = async (session: Session) =>
  (await h.ok<Session>('sessions.status', { params: { id: session.id } })).status;
const paymentOf = (session: Session) =>
  [...h.payments.values()].find((p) => p.checkoutSessionId === session.id) as PaymentSnapshot;
const retrieve = (link: Link) => h.ok<Link>('links.retrieve', { params: { id: link.id } }, merchant());

/** Asserts a pay refused because of the link, returning the reason the page translates. */
async function refusedForLink(session: Session): Promise<{ reason: string; message: string }> {
  const error = await h.fails(
    'sessions.pay',
    { params: { id: session.id }, body: ORANGE },
    'invalid_request',
    400,
  );
  expect(error.fields).toHaveLength(1);
  expect(error.fields?.[0]?.field).toBe('link');
  return { reason: error.fields![0]!.message, message: error.message };
}

async function complete(session: Session) {
  const payment = paymentOf(session);
  await h.paymentEvent('payment.completed', { ...payment, status: 'COMPLETED' });
  await eventually(async () => (await statusOf(session)) === 'success');
}

describe('paying a session re-checks its link', () => {
  it('refuses a session opened before the merchant switched the link off, and pays once it is on again', async () => {
    const link = await create({ name: 'Switch', amount: 1000 });
    const session = await start(link);
    await h.ok('links.update', { params: { id: link.id }, body: { status: 'INACTIVE' } }, merchant());
    expect((await refusedForLink(session)).reason).toBe('link_inactive');
    expect(await statusOf(session)).toBe('idle');
    expect(paymentOf(session)).toBeUndefined();

    await h.ok('links.update', { params: { id: link.id }, body: { status: 'ACTIVE' } }, merchant());
    expect((await pay(session)).status).toBe(200);
  });

  it('refuses a session opened before the link expired', async () => {
    const link = await create({
      name: 'Soon',
      amount: 1000,
      expiresAt: new Date(Date.now() + 400).toISOString(),
    });
    const session = await start(link);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await refusedForLink(session)).reason).toBe('link_expired');
    expect(await statusOf(session)).toBe('idle');
  });

  it('refuses a session once other payments used the link up', async () => {
    const link = await create({ name: 'Once', amount: 1000, maxUses: 1 });
    const first = await start(link);
    const second = await start(link);
    expect((await pay(first)).status).toBe(200);
    await complete(first);
    await eventually(async () => (await retrieve(link)).usageCount === 1);
    const refused = await refusedForLink(second);
    expect(refused).toEqual({
      reason: 'link_exhausted',
      message: 'This payment link has reached its maximum number of uses.',
    });
  });
});

describe('deleting a link', () => {
  it('archives it: gone from the API and the public read, new payments refused, its sessions kept', async () => {
    const owner = merchant(randomUUID());
    const link = await h.ok<Link>('links.create', { body: { name: 'Gone', amount: 1000 } }, owner, 201);
    const kept = await h.ok<Link>('links.create', { body: { name: 'Kept', amount: 1000 } }, owner, 201);
    const paid = await start(link);
    const open = await start(link);
    expect((await pay(paid)).status).toBe(200);

    await h.notFound('links.delete', { params: { id: link.id } }, merchant());
    expect(await h.ok('links.delete', { params: { id: link.id } }, owner, 200)).toEqual({
      id: link.id,
      deleted: true,
    });
    await h.notFound('links.delete', { params: { id: link.id } }, owner);
    await h.notFound('links.retrieve', { params: { id: link.id } }, owner);
    await h.notFound('links.update', { params: { id: link.id }, body: { name: 'Back' } }, owner);
    const list = await h.ok<{ data: Link[]; meta: { total: number } }>('links.list', {}, owner);
    expect(list.data.map((l) => l.id)).toEqual([kept.id]);
    expect(list.meta.total).toBe(1);
    await h.notFound('links.public', { params: { shortCode: link.shortCode } });
    await h.notFound('links.start', { params: { shortCode: link.shortCode }, body: {} });
    const page = await h.call('pages.link', { params: { shortCode: link.shortCode } });
    expect(page.status).toBe(404);

    expect(await refusedForLink(open)).toEqual({
      reason: 'link_inactive',
      message: 'This payment link is no longer available.',
    });
    // The payment already under way still ends, and its session says how.
    await complete(paid);
    expect(await statusOf(paid)).toBe('success');
  });
});

describe('maxUses under concurrency', () => {
  it('lets at most maxUses payments through at once, and gives a use back when a payment ends unpaid', async () => {
    const link = await create({ name: 'Two', amount: 1000, maxUses: 2 });
    const sessions = await Promise.all(Array.from({ length: 6 }, () => start(link)));
    const outcomes = await Promise.all(
      sessions.map((session) =>
        pay(session).then(
          () => 'paid',
          (error: unknown) => {
            if (!isAppError(error)) throw error;
            return `${error.code}:${error.fields?.[0]?.message}`;
          },
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'paid')).toHaveLength(2);
    expect(outcomes.filter((o) => o === 'invalid_request:link_exhausted')).toHaveLength(4);
    const holders = sessions.filter((_, i) => outcomes[i] === 'paid');
    const waiting = sessions.filter((_, i) => outcomes[i] !== 'paid');
    for (const session of waiting) expect(await statusOf(session)).toBe('idle');
    expect((await refusedForLink(waiting[0]!)).message).toMatch(/in progress/);

    // A failed payment gives its use back: one waiting payer gets through, the next does not.
    await h.paymentEvent('payment.failed', { ...paymentOf(holders[0]!), status: 'FAILED' });
    await eventually(async () => (await statusOf(holders[0]!)) === 'failed');
    await eventually(() => pay(waiting[0]!).then(() => true));
    expect((await refusedForLink(waiting[1]!)).reason).toBe('link_exhausted');

    // An expired payment gives its use back; a number the operator refuses gives it back at once.
    await h.paymentEvent('payment.expired', { ...paymentOf(waiting[0]!), status: 'EXPIRED' });
    await eventually(async () => (await statusOf(waiting[0]!)) === 'expired');
    await h.payRefused(waiting[1]!.id, appError('invalid_phone', 'The operator refused this number.'));
    expect(await statusOf(waiting[1]!)).toBe('idle');
    expect((await pay(waiting[2]!)).status).toBe(200);

    // Both holders complete: the link is used up, never over.
    await complete(holders[1]!);
    await complete(waiting[2]!);
    await eventually(async () => (await retrieve(link)).usageCount === 2);
    const refused = await refusedForLink(waiting[3]!);
    expect(refused.message).toBe('This payment link has reached its maximum number of uses.');
    await h.fails('links.start', { params: { shortCode: link.shortCode }, body: {} }, 'invalid_request', 400);
    expect((await retrieve(link)).usageCount).toBe(2);
  });

  it('changes nothing when the events of a paid session come again, in any order', async () => {
    const link = await create({ name: 'Redelivered', amount: 1000, maxUses: 2 });
    const [paid, other] = await Promise.all([start(link), start(link)]);
    expect((await pay(paid!)).status).toBe(200);
    await complete(paid!);
    await eventually(async () => (await retrieve(link)).usageCount === 1);
    // What a consumer recreated from the stream's start would see again (new ids: nothing
    // remembers which events were applied; every write is guarded instead).
    const payment = paymentOf(paid!);
    for (const [type, status] of [
      ['payment.completed', 'COMPLETED'],
      ['payment.created', 'PENDING'],
      ['payment.initiated', 'PENDING'],
      ['payment.processing', 'PROCESSING'],
      ['payment.completed', 'COMPLETED'],
    ] as const)
      await h.paymentEvent(type, { ...payment, status });
    await h.paymentEventsApplied();
    expect(await statusOf(paid!)).toBe('success');
    expect((await retrieve(link)).usageCount).toBe(1);
    expect((await pay(other!)).status).toBe(200);
  });

  it('releases a use once, however often the ending event is delivered', async () => {
    const link = await create({ name: 'Replay', amount: 1000, maxUses: 1 });
    const [a, b, c] = await Promise.all([start(link), start(link), start(link)]);
    expect((await pay(a!)).status).toBe(200);
    const failed = { ...paymentOf(a!), status: 'FAILED' };
    const eventId = await h.paymentEvent('payment.failed', failed);
    await h.paymentEvent('payment.failed', failed, eventId);
    await h.paymentEvent('payment.failed', failed);
    await eventually(async () => (await statusOf(a!)) === 'failed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await pay(b!)).status).toBe(200);
    expect((await refusedForLink(c!)).reason).toBe('link_exhausted');
  });
});
