import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ALL_SCOPES,
  checkoutApi,
  paymentsApi,
  webhookEndpointsApi,
  type Actor,
  type HttpOperationContract,
} from '@mmp/protocol';
import { connectNats, createBusClient, createLogger, type NatsConnection } from '@mmp/platform';
import { useShop } from './support/shop.js';
import { PAYS } from './links-checkout-api/helpers.js';

/**
 * A keyed POST that took effect but whose reply never reached the gateway (it crashed, NATS
 * went away, the reply came after its timeout) answered 503; the merchant's retry with the
 * same key must get the first answer, not the 409 a second run of the operation gives
 * ("already paid"). Each case sends the request over the bus as the gateway does, drops
 * the reply, then retries through HTTP with the same key and body.
 */
const shop = useShop('Lost Replies Shop');
const { merchant, shopper } = shop;
const log = createLogger({ service: 'e2e-lost-replies', level: 'silent' });
let nc: NatsConnection | undefined;

afterAll(async () => {
  await nc?.close();
});

async function bus() {
  nc ??= await connectNats({ url: shop.system.system.env.NATS_URL!, name: 'e2e-lost-replies', log });
  return createBusClient({
    nc,
    naming: shop.system.system.naming,
    caller: 'gateway',
    defaultTimeoutMs: 5000,
    log,
  });
}

const merchantActor = (): Actor => ({
  kind: 'merchant',
  projectId: shop.project.id,
  livemode: false,
  scopes: [...ALL_SCOPES],
  keyId: 'key_of_the_lost_request',
});

/** Runs the request once over the bus (its reply "lost"), then retries it through HTTP. */
async function lostThenRetried(options: {
  contract: HttpOperationContract;
  actor: Actor;
  params?: Record<string, string>;
  body?: unknown;
  path: string;
  call: typeof merchant;
}) {
  const key = randomUUID();
  const first = await (
    await bus()
  ).request(
    options.contract,
    { params: options.params ?? {}, query: {}, body: options.body, headers: { 'idempotency-key': key } },
    { actor: options.actor },
  );
  const retry = await options.call('POST', options.path, options.body, { 'idempotency-key': key });
  expect(retry.status, JSON.stringify(retry.body)).toBe(first.status);
  expect(retry.body).toEqual(JSON.parse(JSON.stringify(first.body)));
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  return first.body as Record<string, unknown>;
}

const session = async () =>
  (await merchant<{ id: string }>('POST', '/v1/checkout/sessions', { amount: 1500 })).body.id;

describe('a same-key retry after a reply lost on the way back gets the first answer', () => {
  it('POST /v1/checkout/sessions/:id/pay: the payment again, not 409 already paid', async () => {
    const id = await session();
    const paid = await lostThenRetried({
      contract: checkoutApi.pay,
      actor: { kind: 'public' },
      params: { id },
      body: PAYS,
      path: `/v1/checkout/sessions/${id}/pay`,
      call: shopper,
    });
    expect(paid).toBeDefined();
  });

  it('POST /v1/checkout/sessions/:id/cancel', async () => {
    const id = await session();
    await lostThenRetried({
      contract: checkoutApi.cancel,
      actor: { kind: 'public' },
      params: { id },
      path: `/v1/checkout/sessions/${id}/cancel`,
      call: shopper,
    });
  });

  it('POST /v1/checkout/sessions and POST /v1/payments: one object, not a second', async () => {
    const body = { amount: 2100 };
    await lostThenRetried({
      contract: checkoutApi.create,
      actor: merchantActor(),
      body,
      path: '/v1/checkout/sessions',
      call: merchant,
    });
    await lostThenRetried({
      contract: paymentsApi.create,
      actor: merchantActor(),
      body,
      path: '/v1/payments',
      call: merchant,
    });
  });

  it('POST /v1/payments/:token/cancel', async () => {
    const { token } = (await merchant<{ token: string }>('POST', '/v1/payments', { amount: 1200 })).body;
    await lostThenRetried({
      contract: paymentsApi.cancel,
      actor: merchantActor(),
      params: { token },
      path: `/v1/payments/${token}/cancel`,
      call: merchant,
    });
  });

  it('POST /v1/webhook-endpoints/:id/roll-secret: the secret it showed once, not a third one', async () => {
    const created = await merchant<{ id: string }>('POST', '/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hooks',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rolled = await lostThenRetried({
      contract: webhookEndpointsApi.rollSecret,
      actor: merchantActor(),
      params: { id: created.body.id },
      path: `/v1/webhook-endpoints/${created.body.id}/roll-secret`,
      call: merchant,
    });
    expect(JSON.stringify(rolled)).toMatch(/whsec_|secret/);
  });
});
