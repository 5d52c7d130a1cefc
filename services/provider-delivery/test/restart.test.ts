import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '@mmp/platform';
import { answerOrders, eventually } from '@mmp/platform/testing';
import { providerDeliveryService } from '../src/service.js';
import { useProviderEndpoint } from './support.js';

const secret = 'whsec_restart0123456789abcdefghijklm';
const provider = useProviderEndpoint('restart', { secret });
const { system } = provider;
const env = {
  ...system.env,
  ALLOW_HTTP_LOOPBACK_ENDPOINTS: 'true',
  DELIVERY_TIMEOUT_MS: '1000',
  DELIVERY_BACKOFF_MS: '1500',
};
let service: RunningService | undefined;

beforeAll(() => {
  provider.rail('rail_flaky', '/flaky', (call, n) =>
    n === 1 ? { status: 503 } : answerOrders('ACCEPTED')(call, n),
  );
  provider.rail('rail_silent', '/silent', () => 'silence');
  provider.rail('rail_ok', '/ok', answerOrders('ACCEPTED'));
});
afterAll(async () => {
  await service?.stop();
});

describe('a restart of provider-delivery in the middle of retries', () => {
  it('loses no order and never delivers again after acceptance', async () => {
    service = await startService(providerDeliveryService, env);
    const data = await provider.bus.publishOrder({ railId: 'rail_flaky' });
    await eventually(async () => provider.endpoint.callsTo('/flaky').length === 1);
    // Stopped during the backoff: the retry lives in JetStream (nak with delay), not here.
    await service.stop();
    service = undefined;
    await new Promise((resolve) => setTimeout(resolve, 1800));
    expect(provider.endpoint.callsTo('/flaky')).toHaveLength(1);
    expect(provider.bus.outcomesOf(data.orderKey)).toEqual([]);

    service = await startService(providerDeliveryService, env);
    await eventually(async () => provider.bus.outcomesOf(data.orderKey).length === 1, 10_000);
    expect(provider.bus.outcomesOf(data.orderKey)).toEqual([
      expect.objectContaining({ type: 'delivery.accepted', attempts: 2 }),
    ]);
    expect(provider.endpoint.callsTo('/flaky')).toHaveLength(2);

    // Stopped after acceptance, started again, and the same order announced once more.
    await service.stop();
    service = await startService(providerDeliveryService, env);
    await provider.bus.publishOrder({
      railId: 'rail_flaky',
      orderKey: data.orderKey,
      expiresAt: data.expiresAt,
    });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(provider.endpoint.callsTo('/flaky')).toHaveLength(2);
    expect(provider.bus.outcomesOf(data.orderKey)).toHaveLength(1);
    const { deliveries } = await provider.bus.deliveries(data.orderKey);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.attempts.map((attempt) => attempt.classification)).toEqual([
      'HTTP_ERROR',
      'ACCEPTED',
    ]);
  });

  it('a failover to another rail is a new delivery of the same key', async () => {
    provider.rails.set('rail_second', { endpoint: provider.endpoint.url('/flaky'), secret });
    service ??= await startService(providerDeliveryService, env);
    const data = await provider.bus.publishOrder({ railId: 'rail_unknown' });
    await eventually(async () => provider.bus.outcomesOf(data.orderKey).length === 1);
    expect(provider.bus.outcomesOf(data.orderKey)[0]).toMatchObject({
      type: 'delivery.failed',
      classification: 'UNREACHABLE',
      railId: 'rail_unknown',
    });
    await provider.bus.publishOrder({ railId: 'rail_second', orderKey: data.orderKey });
    await eventually(async () => provider.bus.outcomesOf(data.orderKey).length === 2);
    expect(provider.bus.outcomesOf(data.orderKey)[1]).toMatchObject({
      type: 'delivery.accepted',
      railId: 'rail_second',
    });
    expect(
      (await provider.bus.deliveries(data.orderKey)).deliveries.map((delivery) => [
        delivery.railId,
        delivery.status,
      ]),
    ).toEqual([
      ['rail_unknown', 'FAILED'],
      ['rail_second', 'ACKED'],
    ]);
  });

  it('a silent provider does not hold up another provider’s orders', async () => {
    service ??= await startService(providerDeliveryService, env);
    const slow = await provider.bus.publishOrder({ railId: 'rail_silent' });
    await eventually(async () => provider.endpoint.orders('/silent', slow.orderKey).length > 0);
    const quick = await provider.bus.publishOrder({ railId: 'rail_ok' });
    await eventually(async () => provider.bus.outcomesOf(quick.orderKey).length === 1, 900);
    expect(provider.bus.outcomesOf(slow.orderKey)).toEqual([]);
  });

  it('waits for provider-router to come back without spending an attempt', async () => {
    service ??= await startService(providerDeliveryService, env);
    provider.bus.setRouterAway(true);
    const calls = provider.bus.credentialCalls();
    const data = await provider.bus.publishOrder({ railId: 'rail_ok' });
    await eventually(async () => provider.bus.credentialCalls() > calls);
    expect(provider.endpoint.orders('/ok', data.orderKey)).toHaveLength(0);
    provider.bus.setRouterAway(false);
    await eventually(async () => provider.bus.outcomesOf(data.orderKey).length === 1, 10_000);
    expect(provider.bus.outcomesOf(data.orderKey)[0]).toMatchObject({
      type: 'delivery.accepted',
      attempts: 1,
    });
  });
});
