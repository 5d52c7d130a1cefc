import { describe, expect, it } from 'vitest';
import { appError } from '@mmp/protocol';
import { ADMIN, SERVICE, providerActor, startRouter, webhookRail } from './harness.js';

const h = await startRouter();

describe('providers', () => {
  it('creates a provider whose signing secret is shown once', async () => {
    const provider = await h.createProvider('Orange Agg');
    expect(provider.signingSecret).toMatch(/^ssec_[A-Za-z0-9]{32}$/);
    const list = await h.call('providers.list', {}, ADMIN);
    const listed = (list.body as { data: Record<string, unknown>[] }).data.find((p) => p.id === provider.id);
    expect(listed).toMatchObject({ name: 'Orange Agg', mappingConfigured: false });
    expect(JSON.stringify(list.body)).not.toContain(provider.signingSecret);
  });

  it('refuses provider creation to providers and merchants, and a nameless provider', async () => {
    const provider = await h.createProvider();
    expect(
      await h.failure('providers.create', { body: { name: 'x' } }, providerActor(provider.id)),
    ).toMatchObject({ status: 403 });
    expect(await h.failure('providers.create', { body: {} }, ADMIN)).toMatchObject({
      status: 422,
      fields: [{ field: 'name' }],
    });
  });

  it('rolls the signing secret', async () => {
    const provider = await h.createProvider();
    const rolled = await h.call(
      'providers.roll-signing-secret',
      { params: { providerId: provider.id } },
      ADMIN,
    );
    expect((rolled.body as { signingSecret: string }).signingSecret).not.toBe(provider.signingSecret);
  });

  it('answers only one of two concurrent signing secret rolls, the one whose secret settlements must carry', async () => {
    const provider = await h.createProvider();
    const roll = () =>
      h.call('providers.roll-signing-secret', { params: { providerId: provider.id } }, ADMIN);
    const results = await Promise.allSettled([roll(), roll()]);
    const won = results.flatMap((r) =>
      r.status === 'fulfilled' ? [(r.value.body as { signingSecret: string }).signingSecret] : [],
    );
    expect(won).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'invalid_state' } });
    const settlement = { protocol_version: '1', idempotency_key: 'pexec_none', transaction_ref: 'none' };
    // A signature with the answered secret passes (and fails later, on the schema).
    expect(await h.settleFailure(provider.id, won[0]!, settlement)).toMatchObject({ status: 422 });
  });
});

describe('rails', () => {
  it('creates a webhook rail in PENDING with a whsec_ secret shown once', async () => {
    const provider = await h.createProvider();
    const rail = await h.createRail(provider.id, webhookRail());
    expect(rail).toMatchObject({ status: 'PENDING', certified: false, lastTest: null, transport: 'webhook' });
    expect(rail.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    const got = await h.call('rails.get', { params: { railId: rail.id } }, providerActor(provider.id));
    const listed = await h.call('rails.list', {}, providerActor(provider.id));
    for (const body of [got.body, listed.body]) {
      expect(JSON.stringify(body)).not.toContain(rail.secret);
      expect(JSON.stringify(body)).not.toContain('sealed');
    }
    expect((got.body as { secretHint: string }).secretHint).toBe(`whsec_…${rail.secret!.slice(-4)}`);
  });

  it('lists every invalid field of a rail at once', async () => {
    const provider = await h.createProvider();
    const error = await h.failure(
      'rails.create',
      {
        body: {
          transport: 'webhook',
          networks: ['ORANGE'],
          countries: ['cm'],
          currencies: [],
          environment: 'prod',
          colour: 'red',
        },
      },
      providerActor(provider.id),
    );
    expect(error.status).toBe(422);
    expect(error.fields?.map((f) => f.field).sort()).toEqual(
      ['colour', 'countries.0', 'currencies', 'endpoint', 'environment', 'networks.0'].sort(),
    );
  });

  it('keeps a provider to its own rails', async () => {
    const owner = await h.createProvider();
    const other = await h.createProvider();
    const rail = await h.createRail(owner.id, webhookRail());
    expect(
      await h.failure('rails.get', { params: { railId: rail.id } }, providerActor(other.id)),
    ).toMatchObject({ status: 404 });
    expect(
      await h.failure('rails.test', { params: { railId: rail.id } }, providerActor(other.id)),
    ).toMatchObject({ status: 404 });
    const listed = await h.call('rails.list', {}, providerActor(other.id));
    expect((listed.body as { data: unknown[] }).data).toEqual([]);
  });

  it('rolls a webhook secret and gives the current one to services only', async () => {
    const provider = await h.createProvider();
    const rail = await h.createRail(provider.id, webhookRail());
    const rolled = await h.call(
      'rails.roll-secret',
      { params: { railId: rail.id } },
      providerActor(provider.id),
    );
    const secret = (rolled.body as { secret: string }).secret;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(rail.secret);
    const credentials = await h.call('rails.credentials', { body: { railId: rail.id } }, SERVICE);
    expect(credentials.body).toEqual({
      railId: rail.id,
      providerId: provider.id,
      transport: 'webhook',
      endpoint: 'https://provider.example/mmp',
      secret,
    });
    expect(
      await h.failure('rails.credentials', { body: { railId: rail.id } }, providerActor(provider.id)),
    ).toMatchObject({ status: 403 });
    expect(await h.failure('rails.credentials', { body: { railId: 'rail_nope' } }, SERVICE)).toMatchObject({
      status: 404,
    });
  });

  it('answers only one of two concurrent webhook secret rolls, the one provider-delivery signs with', async () => {
    const provider = await h.createProvider();
    const rail = await h.createRail(provider.id, webhookRail());
    const roll = () =>
      h.call('rails.roll-secret', { params: { railId: rail.id } }, providerActor(provider.id));
    const results = await Promise.allSettled([roll(), roll()]);
    const won = results.flatMap((r) =>
      r.status === 'fulfilled' ? [(r.value.body as { secret: string }).secret] : [],
    );
    expect(won).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'invalid_state' } });
    const credentials = await h.call('rails.credentials', { body: { railId: rail.id } }, SERVICE);
    expect((credentials.body as { secret: string }).secret).toBe(won[0]);
  });
});

describe('rail states (specification table)', () => {
  async function pendingRail(body: Record<string, unknown> = {}) {
    const provider = await h.createProvider();
    const rail = await h.createRail(provider.id, { ...webhookRail(), ...body });
    const test = async () =>
      (await h.call('rails.test', { params: { railId: rail.id } }, providerActor(provider.id)))
        .body as Record<string, unknown>;
    return { provider, rail, test };
  }

  it('PENDING + HTTP 200 with the matching nonce -> TESTED; the probe gets the endpoint and the secret', async () => {
    const { rail, test } = await pendingRail();
    const probes: unknown[] = [];
    h.onProbe(async (request) => {
      probes.push(request.body);
      return { status: 200, body: { ok: true, httpStatus: 200, reason: null, latencyMs: 12 } };
    });
    const tested = await test();
    expect(tested).toMatchObject({
      status: 'TESTED',
      lastTest: { ok: true, httpStatus: 200, latencyMs: 12 },
    });
    expect(probes).toEqual([
      { railId: rail.id, endpoint: 'https://provider.example/mmp', secret: rail.secret },
    ]);
  });

  it.each([
    ['non-2xx', { ok: false, httpStatus: 500, reason: 'HTTP 500 from the endpoint', latencyMs: 8 }],
    [
      'wrong nonce',
      { ok: false, httpStatus: 200, reason: 'health.ack nonce does not match the nonce sent', latencyMs: 8 },
    ],
    ['missing nonce', { ok: false, httpStatus: 200, reason: 'health.ack carries no nonce', latencyMs: 8 }],
    [
      'unreachable host',
      { ok: false, httpStatus: null, reason: 'endpoint unreachable: ECONNREFUSED', latencyMs: null },
    ],
  ])('PENDING + %s -> stays PENDING with the reason shown', async (_name, reply) => {
    const { provider, rail, test } = await pendingRail();
    h.onProbe(async () => ({ status: 200, body: reply }));
    const tested = await test();
    expect(tested).toMatchObject({
      status: 'PENDING',
      lastTest: { ok: false, reason: reply.reason, httpStatus: reply.httpStatus },
    });
    const shown = await h.call('rails.get', { params: { railId: rail.id } }, providerActor(provider.id));
    expect((shown.body as { lastTest: { reason: string } }).lastTest.reason).toBe(reply.reason);
  });

  it('PENDING + non-HTTPS endpoint -> stays PENDING without calling out', async () => {
    let called = false;
    h.onProbe(async () => {
      called = true;
      return { status: 200, body: { ok: true, httpStatus: 200, reason: null, latencyMs: 1 } };
    });
    const { test } = await pendingRail({ endpoint: 'http://provider.example/mmp' });
    const tested = await test();
    expect(tested).toMatchObject({
      status: 'PENDING',
      lastTest: { ok: false, reason: expect.stringContaining('https://') },
    });
    expect(called).toBe(false);
  });

  it('allows http:// on loopback only under the development flag', async () => {
    h.onProbe(async () => ({ status: 200, body: { ok: true, httpStatus: 200, reason: null, latencyMs: 1 } }));
    const { test } = await pendingRail({ endpoint: 'http://127.0.0.1:9999/mmp' });
    expect(await test()).toMatchObject({ status: 'TESTED' });
  });

  it('activation needs TESTED: PENDING is refused with the reason of the last test', async () => {
    const { provider, rail, test } = await pendingRail();
    h.onProbe(async () => ({
      status: 200,
      body: { ok: false, httpStatus: 503, reason: 'HTTP 503 from the endpoint', latencyMs: 4 },
    }));
    await test();
    const error = await h.failure(
      'rails.activate',
      { params: { railId: rail.id } },
      providerActor(provider.id),
    );
    expect(error).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(error.message).toContain('HTTP 503 from the endpoint');
  });

  it('TESTED sandbox rail -> ACTIVE; activating again is a no-op; a failed test never demotes it', async () => {
    const { provider, rail, test } = await pendingRail();
    h.onProbe(async () => ({ status: 200, body: { ok: true, httpStatus: 200, reason: null, latencyMs: 1 } }));
    await test();
    const activated = await h.call(
      'rails.activate',
      { params: { railId: rail.id } },
      providerActor(provider.id),
    );
    expect(activated.body).toMatchObject({ status: 'ACTIVE' });
    expect(
      (await h.call('rails.activate', { params: { railId: rail.id } }, providerActor(provider.id))).body,
    ).toMatchObject({ status: 'ACTIVE' });
    h.onProbe(async () => ({
      status: 200,
      body: { ok: false, httpStatus: 500, reason: 'HTTP 500', latencyMs: 1 },
    }));
    expect(await test()).toMatchObject({ status: 'ACTIVE', lastTest: { ok: false, reason: 'HTTP 500' } });
  });

  it('a live rail is refused activation until it is certified', async () => {
    const { provider, rail, test } = await pendingRail({ environment: 'live' });
    h.onProbe(async () => ({ status: 200, body: { ok: true, httpStatus: 200, reason: null, latencyMs: 1 } }));
    await test();
    const error = await h.failure(
      'rails.activate',
      { params: { railId: rail.id } },
      providerActor(provider.id),
    );
    expect(error).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(error.message).toContain('certification');
  });

  it('a pull rail passes its test when the provider asks for it with its key, without a probe', async () => {
    const provider = await h.createProvider();
    let called = false;
    h.onProbe(async () => {
      called = true;
      return { status: 200, body: { ok: false, httpStatus: null, reason: 'x', latencyMs: null } };
    });
    const rail = await h.createRail(provider.id, {
      ...webhookRail(),
      transport: 'pull',
      endpoint: undefined,
    });
    expect(rail.secret).toBeUndefined();
    const tested = await h.call('rails.test', { params: { railId: rail.id } }, providerActor(provider.id));
    expect(tested.body).toMatchObject({ status: 'TESTED', transport: 'pull', endpoint: null });
    expect(called).toBe(false);
  });
});

describe('bad input is a clear error, never a 500', () => {
  it('answers 422, 404 or 403 for malformed bodies, unknown ids and wrong callers', async () => {
    const provider = await h.createProvider();
    const actor = providerActor(provider.id);
    expect(await h.failure('rails.create', { body: 'rail please' }, actor)).toMatchObject({ status: 422 });
    expect(await h.failure('rails.create', { body: [webhookRail()] }, actor)).toMatchObject({ status: 422 });
    expect(await h.failure('rails.create', { body: webhookRail() }, providerActor('prv_gone'))).toMatchObject(
      { status: 404 },
    );
    expect(await h.failure('rails.create', { body: webhookRail() }, { kind: 'public' })).toMatchObject({
      status: 403,
    });
    expect(await h.failure('rails.activate', { params: { railId: 'rail_nope' } }, actor)).toMatchObject({
      status: 404,
    });
    expect(await h.failure('providers.get', { params: { providerId: 'prv_gone' } }, ADMIN)).toMatchObject({
      status: 404,
    });
    expect(
      await h.failure('providers.set-mapping', { params: { providerId: provider.id }, body: [] }, ADMIN),
    ).toMatchObject({ status: 422 });
    expect(
      await h.failure('providers.set-mapping', { params: { providerId: provider.id }, body: {} }, actor),
    ).toMatchObject({ status: 403 });
    expect(await h.failure('orders.status', { body: {} }, SERVICE)).toMatchObject({ status: 422 });
    expect(await h.failure('orders.status', { body: { paymentId: 'x' } }, actor)).toMatchObject({
      status: 403,
    });
  });

  it('a rail test while provider-delivery cannot probe is 503 and leaves the rail untouched', async () => {
    const provider = await h.createProvider();
    const rail = await h.createRail(provider.id, webhookRail());
    h.onProbe(async () => {
      throw appError('service_unavailable', 'down');
    });
    expect(
      await h.failure('rails.test', { params: { railId: rail.id } }, providerActor(provider.id)),
    ).toMatchObject({ status: 503 });
    const got = await h.call('rails.get', { params: { railId: rail.id } }, providerActor(provider.id));
    expect(got.body).toMatchObject({ status: 'PENDING', lastTest: null });
  });
});
