import { describe, expect, it } from 'vitest';
import { eventually } from '@mmp/platform/testing';
import { PUBLIC_URL, merchant, useHarness } from './harness.js';

type Link = { id: string; shortCode: string; usageCount: number };
type Session = {
  id: string;
  url: string;
  amount: number;
  status: string;
  customer: unknown;
  paymentId: string | null;
};

const h = useHarness();

const create = (body: unknown) => h.ok<Link>('links.create', { body }, merchant(), 201);
const start = (link: Link, body: unknown = {}) =>
  h.ok<Session>('links.start', { params: { shortCode: link.shortCode }, body }, undefined, 201);
const startFails = (shortCode: string, body: unknown, code: string, status: number) =>
  h.fails('links.start', { params: { shortCode }, body }, code, status);

describe('starting to pay a link', () => {
  it('creates a checkout session for a fixed link', async () => {
    const link = await create({ name: 'Fixed', amount: 3000 });
    const session = await start(link);
    expect(session.id).toMatch(/^cs_/);
    expect(session).toMatchObject({
      url: `${PUBLIC_URL}/checkout/${session.id}`,
      amount: 3000,
      status: 'idle',
      paymentId: null,
    });
  });

  it('takes the amount of a variable link within its bounds', async () => {
    const link = await create({ name: 'Var', minAmount: 1000, maxAmount: 5000 });
    expect((await start(link, { amount: 2500 })).amount).toBe(2500);
    await startFails(link.shortCode, {}, 'invalid_amount', 400);
    await startFails(link.shortCode, { amount: 999 }, 'invalid_amount', 400);
    await startFails(link.shortCode, { amount: 5001 }, 'invalid_amount', 400);
    await startFails(link.shortCode, { amount: 1500.5 }, 'invalid_amount', 400);
  });

  it('requires what the link collects and checks it', async () => {
    const link = await create({
      name: 'Collect',
      amount: 1000,
      collectName: true,
      collectEmail: true,
      collectPhone: true,
      customFields: [
        { key: 'size', label: 'Size', type: 'select', options: ['S', 'M'], required: true },
        { key: 'note', label: 'Note', type: 'text' },
      ],
    });
    const full = { name: 'Awa', email: 'awa@example.com', phone: '690000001', customFields: { size: 'M' } };
    const refusals = [
      [{ ...full, name: undefined }, 'missing_required_field', 400],
      [{ ...full, email: undefined }, 'missing_required_field', 400],
      [{ ...full, phone: undefined }, 'missing_required_field', 400],
      [{ ...full, customFields: {} }, 'missing_required_field', 400],
      [{ ...full, email: 'not-an-email' }, 'invalid_email', 400],
      [{ ...full, phone: '12' }, 'invalid_phone', 400],
      [{ ...full, customFields: { size: 'XL' } }, 'validation_error', 422],
      [{ ...full, customFields: { size: 'M', other: 'x' } }, 'validation_error', 422],
    ] as const;
    for (const [body, code, httpStatus] of refusals) await startFails(link.shortCode, body, code, httpStatus);
    const session = await start(link, full);
    expect(session.customer).toEqual({ email: 'awa@example.com', phone: '+237690000001' });
  });

  it('refuses inactive, expired and used-up links with a clear reason', async () => {
    const off = await create({ name: 'Off', amount: 1000 });
    await h.ok('links.update', { params: { id: off.id }, body: { status: 'INACTIVE' } }, merchant());
    const inactive = await startFails(off.shortCode, {}, 'invalid_request', 400);
    expect(inactive.fields).toEqual([{ field: 'link', message: 'link_inactive' }]);

    const soon = await create({
      name: 'Soon',
      amount: 1000,
      expiresAt: new Date(Date.now() + 300).toISOString(),
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const expired = await startFails(soon.shortCode, {}, 'invalid_request', 400);
    expect(expired.message).toMatch(/expired/);
    await startFails('NOPE1234', {}, 'resource_not_found', 404);
  });

  it('counts one use per successful payment, once per event, and stops at maxUses', async () => {
    const link = await create({ name: 'Once', amount: 1000, maxUses: 1 });
    const session = await start(link);
    await h.ok('sessions.pay', {
      params: { id: session.id },
      body: { paymentMethod: 'ORANGE_MONEY', phone: '+237690000001' },
    });
    const payment = [...h.payments.values()].find((p) => p.checkoutSessionId === session.id)!;
    const completed = { ...payment, status: 'COMPLETED', completedAt: new Date().toISOString() };
    const eventId = await h.paymentEvent('payment.completed', completed);
    await h.paymentEvent('payment.completed', completed, eventId);
    await h.paymentEvent('payment.completed', completed);
    await eventually(
      async () =>
        (await h.ok<Link>('links.retrieve', { params: { id: link.id } }, merchant())).usageCount === 1,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await h.ok<Link>('links.retrieve', { params: { id: link.id } }, merchant())).usageCount).toBe(1);
    const used = await startFails(link.shortCode, {}, 'invalid_request', 400);
    expect(used.fields).toEqual([{ field: 'link', message: 'link_exhausted' }]);
  });
});
