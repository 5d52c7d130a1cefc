import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MerchantWebhookEvent, type MerchantActor } from '@mmp/protocol';
import { createPayment, eventually, merchant, settlement, usePaymentsHarness } from './support.js';
import { merchantVerifies, startReceiver } from './receiver.js';

// The merchant's receivers in these tests listen on loopback: the development switch is on.
// The timeout leaves a receiver that answers at once time to do so on a loaded machine (at
// 500 ms, a first delivery timed out there and was counted as a second attempt).
const h = usePaymentsHarness({
  env: { WEBHOOK_TIMEOUT_MS: '1500', ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true' },
});

type Endpoint = { id: string; secret?: string; secretHint: string; status: string; enabledEvents: string[] };
type Delivery = {
  id: string;
  eventId: string;
  status: string;
  attempts: { statusCode: number | null; error: string | null; manual: boolean }[];
};

async function addEndpoint(actor: MerchantActor, body: Record<string, unknown>) {
  return (await h.call('webhook-endpoints.create', { body }, actor)).body as Endpoint;
}

/** The error code a call fails with. */
async function refusal(...call: Parameters<typeof h.callError>) {
  return (await h.callError(...call)).code;
}

async function deliveries(actor: MerchantActor, endpointId: string) {
  return (
    (await h.call('webhook-endpoints.deliveries', { params: { id: endpointId } }, actor)).body as {
      data: Delivery[];
    }
  ).data;
}

async function settle(actor: MerchantActor, status: 'COMPLETED' | 'FAILED' = 'COMPLETED') {
  const payment = await createPayment(h, actor, { reference: `W-${randomUUID()}` });
  await h.publish(
    'settlement.received',
    settlement(payment.id, status, {
      network: 'MTN_MOMO',
      failureCode: status === 'FAILED' ? 'insufficient_balance' : null,
    }),
  );
  return payment;
}

describe('webhook endpoints', () => {
  it('shows the secret once, then only its hint', async () => {
    const actor = merchant();
    const reply = await h.call(
      'webhook-endpoints.create',
      { body: { url: 'http://127.0.0.1:9/hooks' } },
      actor,
    );
    expect(reply.status).toBe(201);
    const created = reply.body as Endpoint;
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9]{32,}$/);
    expect(created.enabledEvents).toEqual(['*']);
    const list = (await h.call('webhook-endpoints.list', {}, actor)).body as { data: Endpoint[] };
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).not.toHaveProperty('secret');
    expect(JSON.stringify(list)).not.toContain(created.secret!.slice(6));
    expect(list.data[0]!.secretHint.endsWith(created.secret!.slice(-4))).toBe(true);
    const rolled = (await h.call('webhook-endpoints.roll-secret', { params: { id: created.id } }, actor))
      .body as Endpoint;
    expect(rolled.secret).toMatch(/^whsec_/);
    expect(rolled.secret).not.toBe(created.secret);
  });

  // Which of the two reads comes first is the host's to decide: two rolls that overlap end in
  // one refused (rollSealedSecret's own test makes them overlap), two that do not both pass.
  // Either way the secret stored is one a roll answered.
  it('refuses a roll that raced another with invalid_state, and stores a secret it answered', async () => {
    const actor = merchant();
    const created = await addEndpoint(actor, { url: 'http://127.0.0.1:9/rolled' });
    const answered: string[] = [];
    const roll = async () => {
      const result = await h.call('webhook-endpoints.roll-secret', { params: { id: created.id } }, actor);
      answered.push((result.body as Endpoint).secret!);
    };
    const results = await Promise.allSettled([roll(), roll()]);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    expect(new Set(answered).size).toBe(answered.length);
    for (const refused of results.filter((r) => r.status === 'rejected'))
      expect(refused).toMatchObject({ reason: { code: 'invalid_state' } });
    const listed = (await h.call('webhook-endpoints.get', { params: { id: created.id } }, actor))
      .body as Endpoint;
    expect(answered.some((secret) => listed.secretHint.endsWith(secret.slice(-4)))).toBe(true);
  });

  it('stores the secret sealed, never in clear', async () => {
    const created = await addEndpoint(merchant(), { url: 'http://127.0.0.1:9/sealed' });
    const dir = join(h.system.dataDir, 'payments');
    const stored = readdirSync(dir)
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('\n');
    expect(stored).toContain(created.id);
    expect(stored).not.toContain(created.secret!.slice(6));
  });

  it('updates and deletes, and hides endpoints of other projects and environments', async () => {
    const actor = merchant();
    const created = await addEndpoint(actor, { url: 'http://127.0.0.1:9/a', description: 'main' });
    const updated = await h.call(
      'webhook-endpoints.update',
      { params: { id: created.id }, body: { status: 'disabled', enabledEvents: ['transaction.failed'] } },
      actor,
    );
    expect(updated.body).toMatchObject({
      status: 'disabled',
      enabledEvents: ['transaction.failed'],
      description: 'main',
    });
    const params = { id: created.id };
    for (const who of [merchant(), { ...actor, livemode: true }]) {
      expect(await refusal('webhook-endpoints.update', { params, body: { status: 'enabled' } }, who)).toBe(
        'resource_not_found',
      );
      expect(await refusal('webhook-endpoints.delete', { params }, who)).toBe('resource_not_found');
      expect(await refusal('webhook-endpoints.deliveries', { params }, who)).toBe('resource_not_found');
    }
    expect((await h.call('webhook-endpoints.delete', { params: { id: created.id } }, actor)).body).toEqual({
      id: created.id,
      deleted: true,
    });
    expect(await refusal('webhook-endpoints.roll-secret', { params }, actor)).toBe('resource_not_found');
  });

  it.each([
    [{ url: 'not a url' }],
    [{ url: 'ftp://example.com/hook' }],
    [{ url: 'http://127.0.0.1/x', enabledEvents: ['payment.created'] }],
    [{ url: 'http://127.0.0.1/x', enabledEvents: [] }],
    [{ url: 'http://127.0.0.1/x', extra: 1 }],
  ])('refuses %j with 422 validation_error', async (body) => {
    const error = await h.callError('webhook-endpoints.create', { body }, merchant());
    expect(error.code).toBe('validation_error');
    expect(error.status).toBe(422);
  });

  it('refuses an empty update and a bad deliveries limit', async () => {
    const actor = merchant();
    const created = await addEndpoint(actor, { url: 'http://127.0.0.1:9/a' });
    const params = { id: created.id };
    expect(await refusal('webhook-endpoints.update', { params, body: {} }, actor)).toBe('validation_error');
    expect(await refusal('webhook-endpoints.deliveries', { params, query: { limit: '0' } }, actor)).toBe(
      'invalid_request',
    );
  });
});

describe('webhook delivery', () => {
  it('signs transaction.completed so that an independent verifier accepts it', async () => {
    const receiver = await startReceiver();
    try {
      const actor = merchant();
      const endpoint = await addEndpoint(actor, { url: receiver.url });
      const payment = await settle(actor);
      const [hit] = await eventually(async () => receiver.received.length > 0 && receiver.received);
      expect(
        merchantVerifies(endpoint.secret!, hit!.headers['x-service-signature'] as string, hit!.raw),
      ).toBe(true);
      expect(merchantVerifies('whsec_wrong', hit!.headers['x-service-signature'] as string, hit!.raw)).toBe(
        false,
      );
      expect(hit!.body).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        type: 'transaction.completed',
        livemode: false,
        data: {
          token: payment.token,
          amount: 5000,
          currency: 'XAF',
          status: 'COMPLETED',
          paymentMethod: 'MTN_MOMO',
          failureCode: null,
          failureMessage: null,
        },
      });
      expect(MerchantWebhookEvent.parse(hit!.body)).toEqual(hit!.body);
      expect(hit!.headers['x-service-event-id']).toBe(hit!.body.id);
      const [delivery] = await eventually(async () => {
        const found = await deliveries(actor, endpoint.id);
        return found[0]?.status === 'delivered' && found;
      });
      expect(delivery!.eventId).toBe(hit!.body.id);
      expect(delivery!.attempts).toEqual([expect.objectContaining({ statusCode: 200, error: null })]);
    } finally {
      await receiver.close();
    }
  });

  it('retries after 500 with the same event id and body, recording every attempt', async () => {
    const receiver = await startReceiver((_hit, index) => (index < 2 ? 500 : 200));
    try {
      const actor = merchant();
      const endpoint = await addEndpoint(actor, { url: receiver.url });
      await settle(actor, 'FAILED');
      const delivery = await eventually(async () =>
        (await deliveries(actor, endpoint.id)).find((d) => d.status === 'delivered'),
      );
      expect(delivery.attempts.map((a) => a.statusCode)).toEqual([500, 500, 200]);
      expect(delivery.attempts[0]!.error).toBe('HTTP 500');
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((r) => r.raw)).size).toBe(1);
      expect(receiver.received[0]!.body).toMatchObject({
        type: 'transaction.failed',
        data: {
          status: 'FAILED',
          failureCode: 'insufficient_balance',
          failureMessage: "The payer's wallet balance is too low.",
        },
      });
      expect(MerchantWebhookEvent.safeParse(receiver.received[0]!.body).success).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('gives up after the schedule, then redelivers on demand', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 200 : 503));
    try {
      const actor = merchant();
      const endpoint = await addEndpoint(actor, { url: receiver.url });
      await settle(actor);
      const failed = await eventually(async () =>
        (await deliveries(actor, endpoint.id)).find((d) => d.status === 'failed'),
      );
      expect(failed.attempts).toHaveLength(3);
      healthy = true;
      const queued = await h.call(
        'webhook-endpoints.redeliver',
        { params: { id: endpoint.id, deliveryId: failed.id } },
        actor,
      );
      expect(queued.status).toBe(202);
      const delivered = await eventually(async () =>
        (await deliveries(actor, endpoint.id)).find((d) => d.status === 'delivered'),
      );
      expect(delivered.attempts.at(-1)).toMatchObject({ statusCode: 200, manual: true });
      expect(new Set(receiver.received.map((r) => r.body.id)).size).toBe(1);
      expect(
        (
          await h.callError(
            'webhook-endpoints.redeliver',
            { params: { id: endpoint.id, deliveryId: 'whd_nope' } },
            actor,
          )
        ).code,
      ).toBe('resource_not_found');
    } finally {
      await receiver.close();
    }
  });

  it('delivers only to enabled, subscribed endpoints of the same project and environment', async () => {
    const receiver = await startReceiver();
    try {
      const actor = merchant();
      await addEndpoint(actor, { url: `${receiver.url}?all` });
      await addEndpoint(actor, { url: `${receiver.url}?failed`, enabledEvents: ['transaction.failed'] });
      const disabled = await addEndpoint(actor, { url: `${receiver.url}?disabled` });
      await h.call(
        'webhook-endpoints.update',
        { params: { id: disabled.id }, body: { status: 'disabled' } },
        actor,
      );
      await addEndpoint(merchant(), { url: `${receiver.url}?other` });
      await addEndpoint(
        { ...actor, livemode: true, projectId: actor.projectId },
        { url: 'https://example.com/hook' },
      ).catch(() => undefined);
      await settle(actor);
      await eventually(async () => receiver.received.length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received.map((r) => r.path)).toEqual(['/hooks?all']);
    } finally {
      await receiver.close();
    }
  });

  it('keeps payments fast while an endpoint hangs', async () => {
    const receiver = await startReceiver(
      () => new Promise((resolve) => setTimeout(() => resolve(200), 4000)),
    );
    try {
      const actor = merchant();
      const endpoint = await addEndpoint(actor, { url: receiver.url });
      await settle(actor);
      await eventually(async () => receiver.received.length > 0);
      const started = performance.now();
      for (let i = 0; i < 5; i += 1) await createPayment(h, actor);
      expect(performance.now() - started).toBeLessThan(1000);
      const delivery = await eventually(async () => (await deliveries(actor, endpoint.id))[0]?.attempts[0]);
      expect(delivery.error).toMatch(/timeout/);
    } finally {
      await receiver.close();
    }
  });
});
