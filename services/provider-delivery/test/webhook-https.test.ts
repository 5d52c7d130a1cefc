import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '@mmp/platform';
import {
  answerOrders,
  createTestSystem,
  makeTestCertificate,
  signedWith,
  type ChildService,
} from '@mmp/platform/testing';
import { providerDeliveryService } from '../src/service.js';
import { connectBus, spawnDelivery, useProviderEndpoint } from './support.js';

/**
 * The trust path for real: provider-delivery runs as its own process with
 * NODE_EXTRA_CA_CERTS naming this run's self-signed certificate (Node reads it only at
 * start), and the same delivery from a process without it fails on the certificate. The
 * endpoint is on loopback, so the development switch is on.
 */
const secret = 'whsec_https0123456789abcdefghijklmnop';
const certificate = makeTestCertificate();
const provider = useProviderEndpoint('https', { secret, tls: certificate });
const { rails } = provider;
let child: ChildService | undefined;

beforeAll(async () => {
  provider.rail('rail_accept', '/accept', answerOrders('ACCEPTED'));
  provider.rail('rail_reject', '/reject', answerOrders('REJECTED', 'insufficient_balance'));
  provider.rail('rail_500', '/500', () => ({ status: 500, body: { error: 'boom' } }));
  provider.rail('rail_502_then_accept', '/502-then-accept', (call, n) =>
    n === 1 ? { status: 502 } : answerOrders('ACCEPTED')(call, n),
  );
  provider.rail('rail_silent', '/silent', () => 'silence');
  provider.rail(
    'rail_wrong_echo',
    '/wrong-echo',
    answerOrders('ACCEPTED', undefined, { idempotency_key: 'pexec_someone_else' }),
  );
  provider.rail('rail_garbage', '/garbage', () => ({ status: 200, body: 'OK, got it!' }));
  // A valid ack, then more blank space than an ack could need: cut at the cap, never read.
  provider.rail('rail_big', '/big', (call) => ({
    status: 200,
    body: `${JSON.stringify({ type: 'payment.ack', idempotency_key: call.body.idempotency_key, status: 'ACCEPTED' })}${' '.repeat(100_000)}`,
  }));
  rails.set('rail_plain_http', { endpoint: 'http://provider.example/accept', secret });

  child = await spawnDelivery(provider, {
    NODE_EXTRA_CA_CERTS: certificate.certPath,
    // Long enough for a first TLS handshake on a loaded machine; the silent rail waits it out three times.
    DELIVERY_TIMEOUT_MS: '2000',
    DELIVERY_BACKOFF_MS: '100',
  });
});

afterAll(async () => {
  await child?.kill('SIGTERM');
  certificate.remove();
});

/** Delivers an order to `railId`, which must end in exactly one outcome, like `outcome`. */
async function deliverTo(railId: string, outcome: Record<string, unknown>) {
  const data = await provider.bus.publishOrder({ railId, transport: 'webhook' });
  await provider.bus.settled(data.orderKey);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(provider.bus.outcomesOf(data.orderKey)).toEqual([expect.objectContaining(outcome)]);
  const { deliveries } = await provider.bus.deliveries(data.orderKey);
  return { data, delivery: deliveries[0]! };
}

describe('webhook delivery over HTTPS trusted through NODE_EXTRA_CA_CERTS', () => {
  it('200 ACCEPTED: delivery.accepted, one signed request with the documented headers', async () => {
    const { data, delivery } = await deliverTo('rail_accept', {
      type: 'delivery.accepted',
      classification: 'ACCEPTED',
      attempts: 1,
      railId: 'rail_accept',
    });
    const [call] = provider.endpoint.orders('/accept', data.orderKey);
    expect(signedWith(secret, call!)).toBe(true);
    expect(call?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'payment.execute',
    });
    expect(call!.body).toEqual(data.payload);
    expect(delivery).toMatchObject({ status: 'ACKED', outcome: 'ACCEPTED' });
    expect(delivery.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        httpStatus: 200,
        classification: 'ACCEPTED',
        latencyMs: expect.any(Number),
      }),
    ]);
  });

  it('REJECTED: delivery.rejected with the provider’s reason', async () => {
    await deliverTo('rail_reject', {
      type: 'delivery.rejected',
      classification: 'REJECTED',
      reason: 'insufficient_balance',
    });
  });

  it('500: a failed delivery at once (not retried), HTTP_ERROR', async () => {
    const { data, delivery } = await deliverTo('rail_500', {
      type: 'delivery.failed',
      classification: 'HTTP_ERROR',
      reason: 'HTTP 500',
      attempts: 1,
    });
    expect(provider.endpoint.orders('/500', data.orderKey)).toHaveLength(1);
    expect(delivery).toMatchObject({
      status: 'FAILED',
      attempts: [expect.objectContaining({ httpStatus: 500, classification: 'HTTP_ERROR' })],
    });
  });

  it('502 then success on the 2nd attempt, with the same key and a fresh signature', async () => {
    const { data, delivery } = await deliverTo('rail_502_then_accept', {
      type: 'delivery.accepted',
      attempts: 2,
    });
    const calls = provider.endpoint.orders('/502-then-accept', data.orderKey);
    expect(calls).toHaveLength(2);
    expect(calls.every((call) => signedWith(secret, call))).toBe(true);
    expect(delivery.attempts.map((a) => [a.httpStatus, a.classification])).toEqual([
      [502, 'HTTP_ERROR'],
      [200, 'ACCEPTED'],
    ]);
  });

  it('silence: three attempts, then an explicit TIMEOUT', async () => {
    const { data, delivery } = await deliverTo('rail_silent', {
      type: 'delivery.failed',
      classification: 'TIMEOUT',
      attempts: 3,
    });
    expect(provider.endpoint.orders('/silent', data.orderKey)).toHaveLength(3);
    expect(delivery.attempts.map((a) => [a.httpStatus, a.classification])).toEqual([
      [null, 'TIMEOUT'],
      [null, 'TIMEOUT'],
      [null, 'TIMEOUT'],
    ]);
  });

  it.each([
    ['an ack echoing another key: ECHO_MISMATCH', 'rail_wrong_echo', 'ECHO_MISMATCH'],
    ['an unparseable 200 body: BAD_ACK', 'rail_garbage', 'BAD_ACK'],
    ['an answer past the size of an ack: BAD_ACK', 'rail_big', 'BAD_ACK'],
  ])('%s, never accepted', async (_name, railId, classification) => {
    await deliverTo(railId, { type: 'delivery.failed', classification });
  });

  it('an http:// endpoint is refused without sending anything', async () => {
    const before = provider.endpoint.calls.length;
    await deliverTo('rail_plain_http', {
      type: 'delivery.failed',
      classification: 'UNREACHABLE',
      reason: 'the endpoint must use https://',
    });
    expect(provider.endpoint.calls.length).toBe(before);
  });
});

describe('without NODE_EXTRA_CA_CERTS', () => {
  it('the same endpoint is untrusted: UNREACHABLE, the reason a TLS error, never accepted', async () => {
    expect(process.env.NODE_EXTRA_CA_CERTS).not.toBe(certificate.certPath);
    const other = createTestSystem('untrusted');
    const otherBus = await connectBus(other, rails);
    let service: RunningService | undefined;
    try {
      service = await startService(providerDeliveryService, {
        ...other.env,
        ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true',
      });
      const data = await otherBus.publishOrder({ railId: 'rail_accept' });
      expect(await otherBus.settled(data.orderKey)).toEqual([
        expect.objectContaining({
          type: 'delivery.failed',
          classification: 'UNREACHABLE',
          reason: 'unreachable: tls error',
        }),
      ]);
      expect(provider.endpoint.orders('/accept', data.orderKey)).toEqual([]);
    } finally {
      await service?.stop();
      await otherBus.close();
      await other.cleanup();
    }
  });
});
