import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, startService, type RunningService } from '@mmp/platform';
import {
  createTestSystem,
  eventually,
  makeTestCertificate,
  spawnServiceProcess,
  type ChildService,
} from '@mmp/platform/testing';
import { providerDeliveryService } from '../src/service.js';
import { ackWith, healthAck, startProviderEndpoint } from './provider-endpoint.js';
import { connectBus, type Bus, type Rail } from './support.js';

/**
 * The trust path for real: provider-delivery runs as its own process with
 * NODE_EXTRA_CA_CERTS naming this run's self-signed certificate (Node reads it only at
 * start), and the same probe from a process without it fails on the certificate.
 */
const secret = 'whsec_https0123456789abcdefghijklmnop';
const system = createTestSystem('https');
const certificate = makeTestCertificate();
const rails = new Map<string, Rail>();
let endpoint: Awaited<ReturnType<typeof startProviderEndpoint>>;
let bus: Bus;
let child: ChildService | undefined;

const json = (value: unknown) => JSON.stringify(value);

beforeAll(async () => {
  endpoint = await startProviderEndpoint({
    secret,
    tls: certificate,
    behaviours: {
      '/accept': ackWith('ACCEPTED'),
      '/reject': ackWith('REJECTED', 'insufficient_balance'),
      '/500': () => ({ status: 500, body: json({ error: 'boom' }) }),
      '/502-then-accept': (request, n) =>
        n === 1 ? { status: 502, body: '' } : ackWith('ACCEPTED')(request, n),
      '/silent': () => 'silence',
      '/wrong-echo': ackWith('ACCEPTED', undefined, { idempotency_key: 'pexec_someone_else' }),
      '/garbage': () => ({ status: 200, body: 'OK, got it!' }),
      '/health': healthAck(),
      '/health-wrong-nonce': healthAck(true),
    },
  });
  for (const path of [
    '/accept',
    '/reject',
    '/500',
    '/502-then-accept',
    '/silent',
    '/wrong-echo',
    '/garbage',
  ]) {
    rails.set(`rail${path.replace(/\W/g, '_')}`, { endpoint: endpoint.url(path), secret });
  }
  rails.set('rail_plain_http', {
    endpoint: endpoint.url('/accept').replace('https://127.0.0.1', 'http://example.com'),
    secret,
  });
  bus = await connectBus(system, rails);

  child = spawnServiceProcess({
    name: 'provider-delivery',
    main: fileURLToPath(new URL('../src/main.ts', import.meta.url)),
    env: {
      ...process.env,
      ...system.env,
      LOG_LEVEL: 'warn',
      NODE_EXTRA_CA_CERTS: certificate.certPath,
      DELIVERY_TIMEOUT_MS: '700',
      DELIVERY_BACKOFF_MS: '100',
      PROBE_TIMEOUT_MS: '700',
    },
    naming: system.naming,
    nc: async () => bus.nc,
  });
  await child.waitReady();
});

afterAll(async () => {
  await child?.kill('SIGTERM');
  await bus?.close();
  await endpoint?.close();
  await system.cleanup();
  certificate.remove();
});

async function deliverTo(railId: string) {
  const data = await bus.publishOrder({ railId, transport: 'webhook' });
  await eventually(async () => bus.outcomesOf(data.orderKey).length > 0, 15_000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const outcomes = bus.outcomesOf(data.orderKey);
  const { deliveries } = await bus.deliveries(data.orderKey);
  return { data, outcomes, delivery: deliveries[0]! };
}

describe('webhook delivery over HTTPS trusted through NODE_EXTRA_CA_CERTS', () => {
  it('200 ACCEPTED: delivery.accepted, one signed request with the documented headers', async () => {
    const { data, outcomes, delivery } = await deliverTo('rail_accept');
    expect(outcomes).toEqual([
      expect.objectContaining({
        type: 'delivery.accepted',
        classification: 'ACCEPTED',
        attempts: 1,
        railId: 'rail_accept',
      }),
    ]);
    const [request] = endpoint.requestsTo('/accept').filter((r) => r.body.includes(data.orderKey));
    expect(request?.signatureValid).toBe(true);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'payment.execute',
    });
    expect(JSON.parse(request!.body)).toEqual(data.payload);
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
    const { outcomes } = await deliverTo('rail_reject');
    expect(outcomes).toEqual([
      expect.objectContaining({
        type: 'delivery.rejected',
        classification: 'REJECTED',
        reason: 'insufficient_balance',
      }),
    ]);
  });

  it('500: a failed delivery at once (not retried), HTTP_ERROR', async () => {
    const { data, outcomes, delivery } = await deliverTo('rail_500');
    expect(outcomes).toEqual([
      expect.objectContaining({
        type: 'delivery.failed',
        classification: 'HTTP_ERROR',
        reason: 'HTTP 500',
        attempts: 1,
      }),
    ]);
    expect(endpoint.requestsTo('/500').filter((r) => r.body.includes(data.orderKey))).toHaveLength(1);
    expect(delivery).toMatchObject({
      status: 'FAILED',
      attempts: [expect.objectContaining({ httpStatus: 500, classification: 'HTTP_ERROR' })],
    });
  });

  it('502 then success on the 2nd attempt, with the same key and a fresh signature', async () => {
    const { data, outcomes, delivery } = await deliverTo('rail_502_then_accept');
    expect(outcomes).toEqual([expect.objectContaining({ type: 'delivery.accepted', attempts: 2 })]);
    const requests = endpoint.requestsTo('/502-then-accept').filter((r) => r.body.includes(data.orderKey));
    expect(requests).toHaveLength(2);
    expect(
      requests.every((r) => r.signatureValid && JSON.parse(r.body).idempotency_key === data.orderKey),
    ).toBe(true);
    expect(delivery.attempts.map((a) => [a.httpStatus, a.classification])).toEqual([
      [502, 'HTTP_ERROR'],
      [200, 'ACCEPTED'],
    ]);
  });

  it('silence: three attempts, then an explicit TIMEOUT', async () => {
    const { data, outcomes, delivery } = await deliverTo('rail_silent');
    expect(outcomes).toEqual([
      expect.objectContaining({ type: 'delivery.failed', classification: 'TIMEOUT', attempts: 3 }),
    ]);
    expect(endpoint.requestsTo('/silent').filter((r) => r.body.includes(data.orderKey))).toHaveLength(3);
    expect(delivery.attempts.map((a) => [a.httpStatus, a.classification])).toEqual([
      [null, 'TIMEOUT'],
      [null, 'TIMEOUT'],
      [null, 'TIMEOUT'],
    ]);
  });

  it('an ack echoing another key: ECHO_MISMATCH, never accepted', async () => {
    const { outcomes } = await deliverTo('rail_wrong_echo');
    expect(outcomes).toEqual([
      expect.objectContaining({ type: 'delivery.failed', classification: 'ECHO_MISMATCH' }),
    ]);
  });

  it('an unparseable 200 body: BAD_ACK', async () => {
    const { outcomes } = await deliverTo('rail_garbage');
    expect(outcomes).toEqual([
      expect.objectContaining({ type: 'delivery.failed', classification: 'BAD_ACK' }),
    ]);
  });

  it('an http:// endpoint is refused without sending anything', async () => {
    const before = endpoint.received.length;
    const { outcomes } = await deliverTo('rail_plain_http');
    expect(outcomes).toEqual([
      expect.objectContaining({
        type: 'delivery.failed',
        classification: 'UNREACHABLE',
        reason: expect.stringMatching(/^the endpoint must use https:\/\/ \(got http:\/\/example\.com:\d+\)$/),
      }),
    ]);
    expect(endpoint.received.length).toBe(before);
  });
});

describe('health probe (rail test)', () => {
  it('ok only for HTTP 200 with a health.ack echoing the fresh nonce', async () => {
    expect(await bus.probe({ railId: 'r', endpoint: endpoint.url('/health'), secret })).toMatchObject({
      ok: true,
      httpStatus: 200,
      reason: null,
    });
    const [first, second] = endpoint.requestsTo('/health');
    expect(first?.signatureValid).toBe(true);
    expect(first?.headers['x-service-event']).toBe('health.check');
    expect(JSON.parse(first!.body).nonce).not.toBe(JSON.parse(second?.body ?? '{}').nonce);
    expect(
      await bus.probe({ railId: 'r', endpoint: endpoint.url('/health-wrong-nonce'), secret }),
    ).toMatchObject({ ok: false, httpStatus: 200 });
    expect(await bus.probe({ railId: 'r', endpoint: endpoint.url('/500'), secret })).toMatchObject({
      ok: false,
      httpStatus: 500,
    });
    expect(await bus.probe({ railId: 'r', endpoint: endpoint.url('/silent'), secret })).toMatchObject({
      ok: false,
      httpStatus: null,
      reason: expect.stringMatching(/timeout/),
    });
    expect(await bus.probe({ railId: 'r', endpoint: 'http://example.com/health', secret })).toMatchObject({
      ok: false,
      reason: 'the endpoint must use https:// (got http://example.com)',
    });
  });

  it('without NODE_EXTRA_CA_CERTS the same endpoint is untrusted', async () => {
    expect(process.env.NODE_EXTRA_CA_CERTS).not.toBe(certificate.certPath);
    const other = createTestSystem('untrusted');
    let service: RunningService | undefined;
    try {
      service = await startService(providerDeliveryService, other.env);
      const client = createServiceClient({
        nc: service.context.nc,
        naming: other.naming,
        caller: 'test',
        defaultTimeoutMs: 5000,
      });
      const reply = await client.command('provider-delivery', 'probe', {
        railId: 'r',
        endpoint: endpoint.url('/health'),
        secret,
      });
      expect(reply).toMatchObject({
        ok: false,
        httpStatus: null,
        reason: expect.stringMatching(/unreachable: connection failed \(.*(CERT|SIGNATURE).*\)/),
      });
    } finally {
      await service?.stop();
      await other.cleanup();
    }
  });
});
