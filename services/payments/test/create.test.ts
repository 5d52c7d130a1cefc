import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SPEC_PAYMENT_FIELDS } from '@mmp/platform/testing';
import { openPaymentsDb } from '../src/store/db.js';
import { PUBLIC_URL, createPayment, eventually, merchant, usePaymentsHarness } from './support.js';

const h = usePaymentsHarness();

describe('create', () => {
  it('answers 201 with exactly the fields of the specification', async () => {
    const actor = merchant();
    const reply = await h.call('create', { body: { amount: 5000, description: 'Order 42' } }, actor);
    expect(reply.status).toBe(201);
    const body = reply.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([...SPEC_PAYMENT_FIELDS.created].sort());
    expect(body).toMatchObject({
      projectId: actor.projectId,
      amount: 5000,
      currency: 'XAF',
      status: 'PENDING',
      description: 'Order 42',
      livemode: false,
      completedAt: null,
    });
    expect(body.token).toMatch(/^pay_[A-Za-z0-9]+$/);
    // The hosted page's session id is minted here: links-checkout is not asked.
    expect(body.paymentUrl).toMatch(new RegExp(`^${PUBLIC_URL}/checkout/cs_[A-Za-z0-9]{16,}$`));
    await eventually(async () => h.eventsOf(body.id as string, 'payment.created').length === 1);
  });

  it('announces the payment with all links-checkout needs to make its hosted session', async () => {
    const actor = merchant();
    const created = await createPayment(h, actor, {
      amount: 4200,
      description: 'Commande 42',
      returnUrl: 'https://shop.example/merci',
      customer: { email: 'a@b.cm' },
    });
    const [event] = await eventually(async () => {
      const found = h.eventsOf(created.id, 'payment.created');
      return found.length === 1 && found;
    });
    const sessionId = created.paymentUrl!.slice(created.paymentUrl!.lastIndexOf('/') + 1);
    expect(event!.data.payment).toMatchObject({
      id: created.id,
      token: created.token,
      projectId: actor.projectId,
      livemode: false,
      amount: 4200,
      currency: 'XAF',
      description: 'Commande 42',
      checkoutSessionId: sessionId,
      paymentUrl: created.paymentUrl,
      returnUrl: 'https://shop.example/merci',
      cancelUrl: null,
      payerEmail: 'a@b.cm',
    });
    expect(Date.parse(event!.data.payment.expiresAt!) - Date.parse(created.createdAt)).toBe(900_000);
    // The session a payer opens before links-checkout consumed the event is found by its id.
    const read = await h.checkout.retrieve({ checkoutSessionId: sessionId });
    expect(read).toMatchObject({ id: created.id, paymentUrl: created.paymentUrl });
  });

  it('takes livemode from the key', async () => {
    const reply = await h.call(
      'create',
      { body: { amount: 100, currency: 'XOF' } },
      merchant({ livemode: true }),
    );
    expect(reply.body).toMatchObject({ livemode: true, currency: 'XOF', amount: 100 });
  });

  it.each([
    [{ amount: 99 }, 'invalid_amount', 400],
    [{ amount: 5_000_001 }, 'invalid_amount', 400],
    [{ amount: 100.5 }, 'invalid_amount', 400],
    [{ amount: '5000' }, 'invalid_amount', 400],
    [{ amount: 5000, currency: 'EUR' }, 'invalid_currency', 400],
    [{}, 'missing_required_field', 400],
    [{ amount: 5000, customer: { email: 'not-an-email' } }, 'invalid_email', 400],
    [{ amount: 5000, returnUrl: 'ftp://example.com' }, 'validation_error', 422],
    [{ amount: 5000, userId: 'not-a-uuid' }, 'validation_error', 422],
    [{ amount: 5000, surprise: true }, 'validation_error', 422],
  ])('refuses %j with %s', async (body, code, status) => {
    const error = await h.callError('create', { body }, merchant());
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
  });

  it('answers 400 invalid_request for a body that is not an object', async () => {
    for (const body of ['amount=5000', [5000], 42]) {
      const error = await h.callError('create', { body }, merchant());
      expect(error.code).toBe('invalid_request');
      expect(error.status).toBe(400);
    }
  });

  it('names the limits in the invalid_amount message', async () => {
    const error = await h.callError('create', { body: { amount: 50 } }, merchant());
    expect(error.message).toContain('100');
    expect(error.message).toContain('5000000');
  });

  it('keeps reference unique per project and environment', async () => {
    const actor = merchant();
    const first = await createPayment(h, actor, { reference: 'INV-1' });
    const error = await h.callError('create', { body: { amount: 5000, reference: 'INV-1' } }, actor);
    expect(error.code).toBe('duplicate_transaction');
    expect(error.status).toBe(409);
    // The refused create left no second payment behind.
    const listed = await h.call('list', { query: {} }, actor);
    expect((listed.body as { data: { id: string }[] }).data.map((p) => p.id)).toEqual([first.id]);
    // The same reference is free in the other environment and in another project.
    const live = await createPayment(h, { ...actor, livemode: true }, { reference: 'INV-1' });
    await createPayment(h, merchant(), { reference: 'INV-1' });
    // Nor an event announcing one: events leave in the order they were stored, so once the
    // later payment's is heard, one stored by the refused create would have been heard too.
    await eventually(async () => h.eventsOf(live.id, 'payment.created').length === 1);
    const announced = h.events.filter((event) => event.data.payment.projectId === actor.projectId);
    expect(announced.map((event) => event.data.payment.id).sort()).toEqual([first.id, live.id].sort());
  });

  it('refuses concurrent creates with one reference but one', async () => {
    const actor = merchant();
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => h.call('create', { body: { amount: 5000, reference: 'RACE' } }, actor)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('refuses callers that are not merchants', async () => {
    const error = await h.callError('create', { body: { amount: 5000 } }, { kind: 'public' });
    expect(error.code).toBe('insufficient_permissions');
  });
});

describe('Idempotency-Key', () => {
  /** A create carrying the merchant's Idempotency-Key. */
  const withKey = (key: string, body: Record<string, unknown>) => ({
    body,
    headers: { 'idempotency-key': key },
  });
  it('replays the first status and body for the same key and body', async () => {
    const actor = merchant();
    const key = randomUUID();
    const first = await h.call('create', withKey(key, { amount: 2500 }), actor);
    const second = await h.call('create', withKey(key, { amount: 2500 }), actor);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers).toEqual({ 'Idempotent-Replayed': 'true' });
    expect(first.headers).toBeUndefined();
  });

  it('answers 409 idempotency_conflict for the same key with another body', async () => {
    const actor = merchant();
    const key = randomUUID();
    await h.call('create', withKey(key, { amount: 2500 }), actor);
    const error = await h.callError('create', withKey(key, { amount: 2600 }), actor);
    expect(error.code).toBe('idempotency_conflict');
    expect(error.status).toBe(409);
  });

  it('scopes keys to the project and environment', async () => {
    const key = randomUUID();
    const a = await h.call('create', withKey(key, { amount: 2500 }), merchant());
    const b = await h.call('create', withKey(key, { amount: 2500 }), merchant());
    expect((a.body as { id: string }).id).not.toBe((b.body as { id: string }).id);
  });

  it('never creates two payments for concurrent duplicates', async () => {
    const actor = merchant();
    const key = randomUUID();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => h.call('create', withKey(key, { amount: 7000 }), actor)),
    );
    const ids = new Set(
      results.filter((r) => r.status === 'fulfilled').map((r) => (r.value.body as { id: string }).id),
    );
    expect(ids.size).toBe(1);
    const list = await h.call('list', { query: {} }, actor);
    expect((list.body as { data: unknown[] }).data).toHaveLength(1);
  });

  it('refuses an Idempotency-Key longer than 255 characters', async () => {
    const error = await h.callError('create', withKey('k'.repeat(256), { amount: 5000 }), merchant());
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
  });

  it('lets a failed request be retried with the same key', async () => {
    const actor = merchant();
    const key = randomUUID();
    await createPayment(h, actor, { reference: 'TAKEN' });
    const error = await h.callError('create', withKey(key, { amount: 5000, reference: 'TAKEN' }), actor);
    expect(error.code).toBe('duplicate_transaction');
    const again = await h.callError('create', withKey(key, { amount: 5000, reference: 'TAKEN' }), actor);
    expect(again.code).toBe('duplicate_transaction');
  });

  it('forgets a key after 24 hours: the same request then creates a new payment', async () => {
    const actor = merchant();
    const key = randomUUID();
    const request = withKey(key, { amount: 4200 });
    const first = await h.call('create', request, actor);
    const HOUR = 3_600_000;
    try {
      h.advanceClock(23 * HOUR);
      const replayed = await h.call('create', request, actor);
      expect(replayed.headers).toEqual({ 'Idempotent-Replayed': 'true' });
      expect(replayed.body).toEqual(first.body);
      h.advanceClock(HOUR + 60_000);
      const fresh = await h.call('create', request, actor);
      expect(fresh.status).toBe(201);
      expect(fresh.headers).toBeUndefined();
      expect((fresh.body as { id: string }).id).not.toBe((first.body as { id: string }).id);
      // The new payment owns the key from now on.
      const again = await h.call('create', request, actor);
      expect(again.body).toEqual(fresh.body);
      const list = (await h.call('list', { query: {} }, actor)).body as { meta: { total: number } };
      expect(list.meta.total).toBe(2);
    } finally {
      h.advanceClock(-(24 * HOUR + 60_000));
    }
  });

  it('after a crash between storing the payment and answering, a retry answers that payment', async () => {
    const actor = merchant();
    const key = randomUUID();
    const first = await h.call('create', withKey(key, { amount: 3100 }), actor);
    // Put the key back the way a crash leaves it: claimed long ago, no answer stored.
    const db = openPaymentsDb(h.service.context.store);
    const reopened = await db.idempotency.findOneAndUpdate(
      { _id: `create:${actor.projectId}:test:${key}` },
      {
        $set: { state: 'pending', claimedAt: new Date(Date.now() - 3_600_000).toISOString() },
        $unset: { status: true, body: true },
      },
    );
    expect(reopened).not.toBeNull();
    const retried = await h.call('create', withKey(key, { amount: 3100 }), actor);
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual(first.body);
    expect(
      ((await h.call('list', { query: {} }, actor)).body as { meta: { total: number } }).meta.total,
    ).toBe(1);
  });
});
