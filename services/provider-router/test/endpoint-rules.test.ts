import { describe, expect, it } from 'vitest';
import type { Resolve } from '@mmp/platform';
import { providerPortalApi } from '@mmp/protocol';
import { openRouterDb } from '../src/store/db.js';
import { providerActor, startRouter } from './harness.js';

/** Names answered from a table: a test never asks the outside DNS. */
const resolve: Resolve = async (hostname) =>
  ({
    'rail.internal.test': [{ address: '10.0.0.7', family: 4 }],
    'metadata.test': [{ address: '169.254.169.254', family: 4 }],
    'loop.test': [{ address: '127.0.0.1', family: 4 }],
  })[hostname] ?? [];

/** As in production: the development switch off. */
const strict = await startRouter({ ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'false' }, { resolve });
/** A developer's machine: loopback opened, nothing else. */
const dev = await startRouter({ ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true' }, { resolve });

type Router = typeof strict;

async function railAt(h: Router, endpoint: string) {
  const provider = await h.createProvider();
  const actor = providerActor(provider.id);
  const body = h.webhookRail({ endpoint });
  return { provider, actor, body, created: () => h.createRail(provider.id, body) };
}

async function refusedAtCreation(h: Router, endpoint: string) {
  const { actor, body } = await railAt(h, endpoint);
  return h.failure(providerPortalApi.createRail, { body }, actor);
}

/** Creates a rail at `endpoint` and tests it: what the test recorded, and whether anything reached our endpoint. */
async function tested(h: Router, endpoint: string) {
  const { actor, created } = await railAt(h, endpoint);
  const rail = await created();
  const before = h.endpoint.calls.length;
  const reply = await h.call(providerPortalApi.testRail, { params: { railId: rail.id } }, actor);
  return { rail: reply.body, reached: h.endpoint.calls.length > before };
}

const PUBLIC_ONLY = 'the endpoint must be a public address';

describe('a rail endpoint is a public address', () => {
  it.each([
    ['loopback', (port: number) => `https://127.0.0.1:${port}/mmp`],
    ['IPv6 loopback', (port: number) => `https://[::1]:${port}/mmp`],
    ['a decimal IP', () => 'https://2130706433/mmp'],
    ['a hexadecimal IP', () => 'https://0x7f000001/mmp'],
    ['localhost', () => 'https://localhost/mmp'],
    ['a private address', () => 'https://10.0.0.7/mmp'],
    ['the metadata address', () => 'https://169.254.169.254/latest/meta-data'],
    ['an IPv4-mapped private address', () => 'https://[::ffff:a00:7]/mmp'],
    ['a NAT64 private address', () => 'https://[64:ff9b::a00:7]/mmp'],
    ['loopback over http', (port: number) => `http://127.0.0.1:${port}/mmp`],
  ])('refuses %s at creation (422 naming endpoint)', async (_name, endpoint) => {
    const error = await refusedAtCreation(strict, endpoint(strict.endpoint.port));
    expect(error).toMatchObject({
      status: 422,
      code: 'validation_error',
      fields: [{ field: 'endpoint', message: PUBLIC_ONLY }],
    });
  });

  it('the development switch opens loopback only, never private or link-local ranges', async () => {
    expect(await (await railAt(dev, `https://127.0.0.1:${dev.endpoint.port}/mmp`)).created()).toMatchObject({
      status: 'PENDING',
    });
    for (const endpoint of [
      'https://10.0.0.7/mmp',
      'https://192.168.1.20/mmp',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/mmp',
      'https://[fe80::1]/mmp',
    ]) {
      expect(await refusedAtCreation(dev, endpoint), endpoint).toMatchObject({
        status: 422,
        fields: [{ field: 'endpoint', message: PUBLIC_ONLY }],
      });
    }
  });

  it('a name is judged where it connects: one resolving privately fails its test without a connection', async () => {
    for (const [h, endpoint] of [
      [strict, `https://loop.test:${strict.endpoint.port}/mmp`],
      [strict, 'https://rail.internal.test/mmp'],
      [dev, 'https://rail.internal.test/mmp'],
      [dev, 'https://metadata.test/latest/meta-data'],
    ] as const) {
      const { rail, reached } = await tested(h, endpoint);
      expect(rail, endpoint).toMatchObject({
        status: 'PENDING',
        lastTest: { ok: false, httpStatus: null, reason: PUBLIC_ONLY },
      });
      expect(reached).toBe(false);
    }
  });

  it('a rail saved with a loopback endpoint before the rule fails its test without a connection', async () => {
    const { actor, created } = await railAt(strict, 'https://provider.example/mmp');
    const rail = await created();
    await openRouterDb(strict.running.context.store).rails.findOneAndUpdate(
      { _id: rail.id },
      { $set: { endpoint: `https://127.0.0.1:${strict.endpoint.port}/mmp` } },
    );
    const before = strict.endpoint.calls.length;
    const reply = await strict.call(providerPortalApi.testRail, { params: { railId: rail.id } }, actor);
    expect(reply.body).toMatchObject({ status: 'PENDING', lastTest: { ok: false, reason: PUBLIC_ONLY } });
    expect(strict.endpoint.calls.length).toBe(before);
  });
});
