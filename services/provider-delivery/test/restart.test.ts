import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '@mmp/platform';
import {
  answerOrders,
  createTestSystem,
  eventually,
  startProviderEndpoint,
  type ProviderEndpoint,
} from '@mmp/platform/testing';
import { providerDeliveryService } from '../src/service.js';
import { connectBus, type Bus, type Rail } from './support.js';

const secret = 'whsec_restart0123456789abcdefghijklm';
const system = createTestSystem('restart');
const env = {
  ...system.env,
  ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true',
  DELIVERY_TIMEOUT_MS: '1000',
  DELIVERY_BACKOFF_MS: '1500',
};
const rails = new Map<string, Rail>();
let endpoint: ProviderEndpoint;
let bus: Bus;
let service: RunningService | undefined;

beforeAll(async () => {
  endpoint = await startProviderEndpoint();
  endpoint.on('/flaky', (call, n) => (n === 1 ? { status: 503 } : answerOrders('ACCEPTED')(call, n)));
  endpoint.on('/silent', () => 'silence');
  endpoint.on('/ok', answerOrders('ACCEPTED'));
  rails.set('rail_flaky', { endpoint: endpoint.url('/flaky'), secret });
  rails.set('rail_silent', { endpoint: endpoint.url('/silent'), secret });
  rails.set('rail_ok', { endpoint: endpoint.url('/ok'), secret });
  bus = await connectBus(system, rails);
});
afterAll(async () => {
  await service?.stop();
  await bus?.close();
  await endpoint?.close();
  await system.cleanup();
});

describe('a restart of provider-delivery in the middle of retries', () => {
  it('loses no order and never delivers again after acceptance', async () => {
    service = await startService(providerDeliveryService, env);
    const data = await bus.publishOrder({ railId: 'rail_flaky' });
    await eventually(async () => endpoint.callsTo('/flaky').length === 1);
    // Stopped during the backoff: the retry lives in JetStream (nak with delay), not here.
    await service.stop();
    service = undefined;
    await new Promise((resolve) => setTimeout(resolve, 1800));
    expect(endpoint.callsTo('/flaky')).toHaveLength(1);
    expect(bus.outcomesOf(data.orderKey)).toEqual([]);

    service = await startService(providerDeliveryService, env);
    await eventually(async () => bus.outcomesOf(data.orderKey).length === 1, 10_000);
    expect(bus.outcomesOf(data.orderKey)).toEqual([
      expect.objectContaining({ type: 'delivery.accepted', attempts: 2 }),
    ]);
    expect(endpoint.callsTo('/flaky')).toHaveLength(2);

    // Stopped after acceptance, started again, and the same order announced once more.
    await service.stop();
    service = await startService(providerDeliveryService, env);
    await bus.publishOrder({ railId: 'rail_flaky', orderKey: data.orderKey, expiresAt: data.expiresAt });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(endpoint.callsTo('/flaky')).toHaveLength(2);
    expect(bus.outcomesOf(data.orderKey)).toHaveLength(1);
    const { deliveries } = await bus.deliveries(data.orderKey);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.attempts.map((attempt) => attempt.classification)).toEqual([
      'HTTP_ERROR',
      'ACCEPTED',
    ]);
  });

  it('a failover to another rail is a new delivery of the same key', async () => {
    rails.set('rail_second', { endpoint: endpoint.url('/flaky'), secret });
    service ??= await startService(providerDeliveryService, env);
    const data = await bus.publishOrder({ railId: 'rail_unknown' });
    await eventually(async () => bus.outcomesOf(data.orderKey).length === 1);
    expect(bus.outcomesOf(data.orderKey)[0]).toMatchObject({
      type: 'delivery.failed',
      classification: 'UNREACHABLE',
      railId: 'rail_unknown',
    });
    await bus.publishOrder({ railId: 'rail_second', orderKey: data.orderKey });
    await eventually(async () => bus.outcomesOf(data.orderKey).length === 2);
    expect(bus.outcomesOf(data.orderKey)[1]).toMatchObject({
      type: 'delivery.accepted',
      railId: 'rail_second',
    });
    expect(
      (await bus.deliveries(data.orderKey)).deliveries.map((delivery) => [delivery.railId, delivery.status]),
    ).toEqual([
      ['rail_unknown', 'FAILED'],
      ['rail_second', 'ACKED'],
    ]);
  });

  it('a silent provider does not hold up another provider’s orders', async () => {
    service ??= await startService(providerDeliveryService, env);
    const slow = await bus.publishOrder({ railId: 'rail_silent' });
    await eventually(async () => endpoint.orders('/silent', slow.orderKey).length > 0);
    const quick = await bus.publishOrder({ railId: 'rail_ok' });
    await eventually(async () => bus.outcomesOf(quick.orderKey).length === 1, 900);
    expect(bus.outcomesOf(slow.orderKey)).toEqual([]);
  });

  it('waits for provider-router to come back without spending an attempt', async () => {
    service ??= await startService(providerDeliveryService, env);
    bus.setRouterAway(true);
    const calls = bus.credentialCalls();
    const data = await bus.publishOrder({ railId: 'rail_ok' });
    await eventually(async () => bus.credentialCalls() > calls);
    expect(endpoint.orders('/ok', data.orderKey)).toHaveLength(0);
    bus.setRouterAway(false);
    await eventually(async () => bus.outcomesOf(data.orderKey).length === 1, 10_000);
    expect(bus.outcomesOf(data.orderKey)[0]).toMatchObject({ type: 'delivery.accepted', attempts: 1 });
  });
});
