import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Resolve } from '@mmp/platform';
import { freePort } from '@mmp/platform/testing';
import { WebhookDelivery, type MerchantActor } from '@mmp/protocol';
import {
  createPayment,
  eventually,
  failure,
  merchant,
  settlement,
  usePaymentsHarness,
  type PaymentsHarness,
} from './support.js';
import { startReceiver } from './receiver.js';

/**
 * No merchant key, of either environment, can make payments call into its own network
 * through a webhook endpoint. Names resolve through the test's own resolver, never the
 * outside DNS.
 */
const NAMES: Record<string, string[]> = {
  'hooks.internal.test': ['10.20.30.40'],
  'metadata.internal.test': ['169.254.169.254'],
  'mixed.internal.test': ['93.184.216.34', '192.168.1.10'],
};
const resolve: Resolve = async (hostname) => {
  const addresses = NAMES[hostname];
  if (!addresses) throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: isIP(address) }));
};

const production = usePaymentsHarness({ resolve });
const development = usePaymentsHarness({ resolve, env: { ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true' } });

/** Written out by address: loopback, private, link-local (cloud metadata), and loopback in decimal. */
const INTERNAL_URLS = [
  'https://127.0.0.1/hook',
  'https://localhost/hook',
  'https://[::1]/hook',
  'https://10.1.2.3/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://[::ffff:10.0.0.1]/hook',
  'http://2130706433/',
];
const PRIVATE_URLS = [
  'https://10.1.2.3/hook',
  'http://10.1.2.3/hook',
  'https://192.168.0.10/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://[fd00::1]/hook',
  'https://[::ffff:10.0.0.1]/hook',
];
const ENVIRONMENTS = [
  ['test', false],
  ['live', true],
] as const;

async function refusedUrl(h: PaymentsHarness, actor: MerchantActor, url: string) {
  const error = await h.callError('webhook-endpoints.create', { body: { url } }, actor);
  expect({ code: error.code, field: error.fields?.[0]?.field }, url).toEqual({
    code: 'validation_error',
    field: 'url',
  });
}

/** The first attempt of the delivery of a payment's completion to the actor's only endpoint. */
async function firstAttempt(h: PaymentsHarness, actor: MerchantActor, endpointId: string) {
  const payment = await createPayment(h, actor);
  await h.publish('settlement.received', settlement(payment.id, 'COMPLETED'));
  return eventually(async () => {
    const reply = await h.call('webhook-endpoints.deliveries', { params: { id: endpointId } }, actor);
    const page = WebhookDelivery.array().parse((reply.body as { data: unknown }).data);
    return page[0]?.attempts[0];
  });
}

async function addEndpoint(h: PaymentsHarness, actor: MerchantActor, url: string) {
  const reply = await h.call('webhook-endpoints.create', { body: { url } }, actor);
  expect(reply.status, url).toBe(201);
  return (reply.body as { id: string }).id;
}

describe.each(ENVIRONMENTS)('%s endpoints, outside development', (_name, livemode) => {
  it('refuse loopback, private, link-local and decimal addresses, when created and when updated', async () => {
    const actor = merchant({ livemode });
    for (const url of INTERNAL_URLS) await refusedUrl(production, actor, url);
    expect(
      await production.callError(
        'webhook-endpoints.create',
        { body: { url: 'http://shop.example/hook' } },
        actor,
      ),
    ).toMatchObject({ code: 'validation_error', fields: [{ field: 'url', message: 'must use https' }] });
    const id = await addEndpoint(production, actor, 'https://hooks.internal.test/hook');
    for (const url of INTERNAL_URLS) {
      const error = await production.callError(
        'webhook-endpoints.update',
        { params: { id }, body: { url } },
        actor,
      );
      expect(error.code, url).toBe('validation_error');
    }
  });

  it('never connect to a name that resolves to a private address: refused when dialled, and logged as a class', async () => {
    const actor = merchant({ livemode });
    const id = await addEndpoint(production, actor, 'https://hooks.internal.test/hook');
    expect(await firstAttempt(production, actor, id)).toMatchObject({
      statusCode: null,
      error: 'private address',
    });
  });
});

describe.each(ENVIRONMENTS)('%s endpoints, with the development switch', (_name, livemode) => {
  it('still refuse private and link-local addresses, by address or by name', async () => {
    const actor = merchant({ livemode });
    for (const url of PRIVATE_URLS) await refusedUrl(development, actor, url);
    for (const host of ['metadata.internal.test', 'mixed.internal.test']) {
      const endpointActor = merchant({ livemode });
      const id = await addEndpoint(development, endpointActor, `https://${host}/hook`);
      expect(await firstAttempt(development, endpointActor, id), host).toMatchObject({
        statusCode: null,
        error: 'private address',
      });
    }
  });

  it('reach a receiver on loopback, over http too, and log only its status code or a coarse class', async () => {
    const receiver = await startReceiver(() => 500);
    try {
      const actor = merchant({ livemode });
      const id = await addEndpoint(development, actor, receiver.url);
      expect(await firstAttempt(development, actor, id)).toMatchObject({
        statusCode: 500,
        error: 'HTTP 500',
      });
      const closed = merchant({ livemode });
      const port = await freePort();
      const refusedId = await addEndpoint(development, closed, `http://127.0.0.1:${port}/hook`);
      expect(await firstAttempt(development, closed, refusedId)).toMatchObject({
        statusCode: null,
        error: 'connection refused',
      });
    } finally {
      await receiver.close();
    }
  });
});

describe('an endpoint URL with credentials', () => {
  it('is refused', async () => {
    const error = await failure(
      production.call(
        'webhook-endpoints.create',
        { body: { url: 'https://user:pw@shop.example/hook' } },
        merchant(),
      ),
    );
    expect(error.fields).toEqual([{ field: 'url', message: 'must not contain credentials' }]);
  });
});
