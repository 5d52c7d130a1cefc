import { describe, expect, it } from 'vitest';
import { answerOrders, freePort, signedWith } from '@mmp/platform/testing';
import { providerPortalApi, providersAdminApi, routerQueries } from '@mmp/protocol';
import { ADMIN, providerActor, startRouter } from './harness.js';

const h = await startRouter();
const { createRail, testRail, getRail, listRails, activateRail, rollRailSecret } = providerPortalApi;
const DELIVERY = { kind: 'service', service: 'provider-delivery' } as const;
const webhookRail = h.webhookRail;

describe('providers', () => {
  it('creates a provider whose signing secret is shown once', async () => {
    const provider = await h.createProvider('Orange Agg');
    expect(provider.signingSecret).toMatch(/^ssec_[A-Za-z0-9]{32}$/);
    const list = await h.call(providersAdminApi.list, {}, ADMIN);
    const listed = (list.body as { data: Record<string, unknown>[] }).data.find((p) => p.id === provider.id);
    expect(listed).toMatchObject({ name: 'Orange Agg', mappingConfigured: false });
    expect(JSON.stringify(list.body)).not.toContain(provider.signingSecret);
  });

  it('refuses provider creation to providers and merchants, and a nameless provider', async () => {
    const provider = await h.createProvider();
    expect(
      await h.failure(routerQueries.createProvider, { name: 'x' }, providerActor(provider.id)),
    ).toMatchObject({ status: 403 });
    const nameless = {} as { name: string };
    expect(await h.failure(routerQueries.createProvider, nameless, ADMIN)).toMatchObject({
      status: 422,
      fields: [{ field: 'name' }],
    });
  });

  it('rolls the signing secret', async () => {
    const provider = await h.createProvider();
    const rolled = await h.call(
      providersAdminApi.rollSigningSecret,
      { params: { providerId: provider.id } },
      ADMIN,
    );
    expect((rolled.body as { signingSecret: string }).signingSecret).not.toBe(provider.signingSecret);
  });

  it('answers only one of two concurrent signing secret rolls, the one whose secret settlements must carry', async () => {
    const provider = await h.createProvider();
    const roll = () =>
      h.call(providersAdminApi.rollSigningSecret, { params: { providerId: provider.id } }, ADMIN);
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
    const got = await h.call(getRail, { params: { railId: rail.id } }, providerActor(provider.id));
    const listed = await h.call(listRails, {}, providerActor(provider.id));
    for (const body of [got.body, listed.body]) {
      expect(JSON.stringify(body)).not.toContain(rail.secret);
      expect(JSON.stringify(body)).not.toContain('sealed');
    }
    expect((got.body as { secretHint: string }).secretHint).toBe(`whsec_…${rail.secret!.slice(-4)}`);
  });

  it('lists every invalid field of a rail at once', async () => {
    const provider = await h.createProvider();
    const error = await h.failure(
      createRail,
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
    expect(await h.failure(getRail, { params: { railId: rail.id } }, providerActor(other.id))).toMatchObject({
      status: 404,
    });
    expect(await h.failure(testRail, { params: { railId: rail.id } }, providerActor(other.id))).toMatchObject(
      { status: 404 },
    );
    const listed = await h.call(listRails, {}, providerActor(other.id));
    expect((listed.body as { data: unknown[] }).data).toEqual([]);
  });

  it('rolls a webhook secret and gives the current one to services only', async () => {
    const provider = await h.createProvider();
    const rail = await h.createRail(provider.id, webhookRail());
    const rolled = await h.call(rollRailSecret, { params: { railId: rail.id } }, providerActor(provider.id));
    const secret = (rolled.body as { secret: string }).secret;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(rail.secret);
    const credentials = await h.call(routerQueries.railCredentials, { railId: rail.id }, DELIVERY);
    expect(credentials).toEqual({
      railId: rail.id,
      providerId: provider.id,
      transport: 'webhook',
      endpoint: h.endpoint.url('/mmp'),
      secret,
    });
    expect(
      await h.failure(routerQueries.railCredentials, { railId: rail.id }, providerActor(provider.id)),
    ).toMatchObject({ status: 403 });
    expect(await h.failure(routerQueries.railCredentials, { railId: 'rail_nope' }, DELIVERY)).toMatchObject({
      status: 404,
    });
  });

  it('answers only one of two concurrent webhook secret rolls, the one provider-delivery signs with', async () => {
    const provider = await h.createProvider();
    const rail = await h.createRail(provider.id, webhookRail());
    const roll = () => h.call(rollRailSecret, { params: { railId: rail.id } }, providerActor(provider.id));
    const results = await Promise.allSettled([roll(), roll()]);
    const won = results.flatMap((r) =>
      r.status === 'fulfilled' ? [(r.value.body as { secret: string }).secret] : [],
    );
    expect(won).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'invalid_state' } });
    const credentials = await h.call(routerQueries.railCredentials, { railId: rail.id }, DELIVERY);
    expect(credentials.secret).toBe(won[0]);
  });
});

describe('rail states (specification table)', () => {
  /** A PENDING webhook rail at `path` of the test's endpoint (or at `endpoint`). */
  async function pendingRail(path: string, overrides: Record<string, unknown> = {}) {
    const provider = await h.createProvider();
    const rail = await h.createRail(
      provider.id,
      webhookRail({ endpoint: h.endpoint.url(path), ...overrides }),
    );
    const actor = providerActor(provider.id);
    const params = { railId: rail.id };
    const test = async () => (await h.call(testRail, { params }, actor)).body as Record<string, unknown>;
    const activate = () => h.call(activateRail, { params }, actor);
    return { provider, rail, test, activate, refusal: () => h.failure(activateRail, { params }, actor) };
  }

  it('PENDING + HTTP 200 echoing the fresh nonce -> TESTED; the health.check is signed with the rail secret', async () => {
    h.endpoint.on('/ok', (call) => ({ status: 200, body: { type: 'health.ack', nonce: call.body.nonce } }));
    const { rail, test } = await pendingRail('/ok');
    const tested = await test();
    expect(tested).toMatchObject({ status: 'TESTED', lastTest: { ok: true, httpStatus: 200 } });
    await test();
    const [first, second] = h.endpoint.callsTo('/ok');
    expect(first).toMatchObject({
      event: 'health.check',
      body: { protocol_version: '1', type: 'health.check' },
    });
    expect(signedWith(rail.secret!, first!)).toBe(true);
    expect(first!.body.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(second!.body.nonce).not.toBe(first!.body.nonce);
  });

  it.each([
    ['non-2xx', '/500', () => ({ status: 500, body: { error: 'boom' } }), 500, 'HTTP 500'],
    [
      'a 401 (another secret)',
      '/401',
      () => ({ status: 401 }),
      401,
      "HTTP 401: the endpoint refused the signed call; does it verify with this rail's whsec_ secret?",
    ],
    [
      'wrong nonce',
      '/wrong-nonce',
      () => ({ status: 200, body: { type: 'health.ack', nonce: 'f'.repeat(32) } }),
      200,
      'the health.ack echoes a different nonce',
    ],
    [
      'missing nonce',
      '/no-nonce',
      () => ({ status: 200, body: { type: 'health.ack' } }),
      200,
      'the health.ack carries no nonce',
    ],
    ['not an ack', '/garbage', () => ({ status: 200, body: 'OK' }), 200, 'the answer is not a health.ack'],
    ['silence', '/silent', () => 'silence' as const, null, 'timeout: the endpoint did not answer in time'],
  ])(
    'PENDING + %s -> stays PENDING with the reason shown',
    async (_name, path, behaviour, httpStatus, reason) => {
      h.endpoint.on(path, behaviour);
      const { provider, rail, test } = await pendingRail(path);
      expect(await test()).toMatchObject({ status: 'PENDING', lastTest: { ok: false, reason, httpStatus } });
      const shown = await h.call(getRail, { params: { railId: rail.id } }, providerActor(provider.id));
      expect(shown.body).toMatchObject({ lastTest: { reason } });
    },
  );

  it('PENDING + an unreachable host -> stays PENDING, the reason a coarse class', async () => {
    const { rail, test } = await pendingRail('/', { endpoint: `http://127.0.0.1:${await freePort()}/mmp` });
    expect(await test()).toMatchObject({
      status: 'PENDING',
      lastTest: { ok: false, httpStatus: null, reason: 'unreachable: connection refused' },
    });
    expect(rail.status).toBe('PENDING');
  });

  it('PENDING + non-HTTPS endpoint -> stays PENDING without calling out', async () => {
    const before = h.endpoint.calls.length;
    const { test } = await pendingRail('/', { endpoint: 'http://provider.example/mmp' });
    expect(await test()).toMatchObject({
      status: 'PENDING',
      lastTest: { ok: false, httpStatus: null, reason: 'the endpoint must use https://' },
    });
    expect(h.endpoint.calls.length).toBe(before);
  });

  it('activation needs TESTED: PENDING is refused with the reason of the last test', async () => {
    h.endpoint.on('/503', () => ({ status: 503 }));
    const { test, refusal } = await pendingRail('/503');
    await test();
    const error = await refusal();
    expect(error).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(error.message).toContain('Last test failed: HTTP 503');
  });

  it('TESTED sandbox rail -> ACTIVE; activating again is a no-op; a failed test never demotes it', async () => {
    h.endpoint.on('/recovers', (call, n) => (n === 1 ? answerOrders('ACCEPTED')(call, n) : { status: 500 }));
    const { test, activate } = await pendingRail('/recovers');
    await test();
    expect((await activate()).body).toMatchObject({ status: 'ACTIVE' });
    expect((await activate()).body).toMatchObject({ status: 'ACTIVE' });
    expect(await test()).toMatchObject({ status: 'ACTIVE', lastTest: { ok: false, reason: 'HTTP 500' } });
  });

  it('a live rail is refused activation until it is certified', async () => {
    const { test, refusal } = await pendingRail('/mmp', { environment: 'live' });
    await test();
    const error = await refusal();
    expect(error).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(error.message).toContain('certification');
  });

  it('a pull rail passes its test when the provider asks for it with its key, without a call', async () => {
    const provider = await h.createProvider();
    const before = h.endpoint.calls.length;
    const rail = await h.createRail(provider.id, webhookRail({ transport: 'pull', endpoint: undefined }));
    expect(rail.secret).toBeUndefined();
    const tested = await h.call(testRail, { params: { railId: rail.id } }, providerActor(provider.id));
    expect(tested.body).toMatchObject({ status: 'TESTED', transport: 'pull', endpoint: null });
    expect(h.endpoint.calls.length).toBe(before);
  });
});

describe('bad input is a clear error, never a 500', () => {
  it('answers 422, 404 or 403 for malformed bodies, unknown ids and wrong callers', async () => {
    const provider = await h.createProvider();
    const actor = providerActor(provider.id);
    expect(await h.failure(createRail, { body: 'rail please' }, actor)).toMatchObject({ status: 422 });
    expect(await h.failure(createRail, { body: [webhookRail()] }, actor)).toMatchObject({ status: 422 });
    expect(await h.failure(createRail, { body: webhookRail() }, providerActor('prv_gone'))).toMatchObject({
      status: 404,
    });
    expect(await h.failure(createRail, { body: webhookRail() }, { kind: 'public' })).toMatchObject({
      status: 403,
    });
    expect(await h.failure(activateRail, { params: { railId: 'rail_nope' } }, actor)).toMatchObject({
      status: 404,
    });
    expect(
      await h.failure(providerPortalApi.profile, { params: { providerId: 'prv_gone' } }, ADMIN),
    ).toMatchObject({
      status: 404,
    });
    expect(
      await h.failure(providersAdminApi.setMapping, { params: { providerId: provider.id }, body: [] }, ADMIN),
    ).toMatchObject({ status: 422 });
    expect(
      await h.failure(providersAdminApi.setMapping, { params: { providerId: provider.id }, body: {} }, actor),
    ).toMatchObject({ status: 403 });
    const payments = { kind: 'service', service: 'payments' } as const;
    // A request its contract refuses, as a caller with a bug would send it.
    const noPayment = {} as { paymentId: string };
    expect(await h.failure(routerQueries.orderStatus, noPayment, payments)).toMatchObject({ status: 422 });
    expect(await h.failure(routerQueries.orderStatus, { paymentId: 'x' }, actor)).toMatchObject({
      status: 403,
    });
  });
});
