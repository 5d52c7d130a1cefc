import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Resolve, type RunningService } from '@mmp/platform';
import {
  answerOrders,
  createTestSystem,
  startProviderEndpoint,
  type ProviderEndpoint,
  type TestSystem,
} from '@mmp/platform/testing';
import { providerDelivery } from '../src/service.js';
import { connectBus, type Bus, type Rail } from './support.js';

/** Names answered from a table: a test never asks the outside DNS. */
const resolve: Resolve = async (hostname) =>
  ({
    'loop.test': [{ address: '127.0.0.1', family: 4 }],
    'rail.internal.test': [{ address: '10.0.0.7', family: 4 }],
    'metadata.test': [{ address: '169.254.169.254', family: 4 }],
  })[hostname] ?? [];

const secret = 'whsec_rules0123456789abcdefghijklmnop';
const rails = new Map<string, Rail>();
let endpoint: ProviderEndpoint;

/** provider-delivery with the development switch as given, and its own bus. */
async function deliveryWith(allowLoopback: boolean) {
  const system: TestSystem = createTestSystem(allowLoopback ? 'rulesdev' : 'rules');
  const bus: Bus = await connectBus(system, rails);
  const service: RunningService = await startService(providerDelivery({ resolve }), {
    ...system.env,
    ALLOW_HTTP_LOOPBACK_ENDPOINTS: String(allowLoopback),
    DELIVERY_TIMEOUT_MS: '1000',
  });
  return {
    bus,
    /** Delivers an order to a rail at `url`: its outcomes, and whether anything reached our endpoint. */
    async deliverTo(url: string) {
      const railId = `rail_${rails.size}`;
      rails.set(railId, { endpoint: url, secret });
      const before = endpoint.calls.length;
      const data = await bus.publishOrder({ railId });
      return { outcomes: await bus.settled(data.orderKey), reached: endpoint.calls.length > before };
    },
    async stop() {
      await service.stop();
      await bus.close();
      await system.cleanup();
    },
  };
}

let strict: Awaited<ReturnType<typeof deliveryWith>>;
let dev: Awaited<ReturnType<typeof deliveryWith>>;

beforeAll(async () => {
  endpoint = await startProviderEndpoint();
  endpoint.on('/orders', answerOrders('ACCEPTED'));
  strict = await deliveryWith(false);
  dev = await deliveryWith(true);
});
afterAll(async () => {
  await strict?.stop();
  await dev?.stop();
  await endpoint?.close();
});

const refused = [
  expect.objectContaining({
    type: 'delivery.failed',
    classification: 'UNREACHABLE',
    reason: 'the endpoint must be a public address',
  }),
];

describe('every delivery reaches public addresses only, judged when it connects', () => {
  it('refuses loopback in any spelling, and a name resolving to it, without the development switch', async () => {
    const { port } = endpoint;
    for (const url of [
      `https://127.0.0.1:${port}/orders`,
      `https://[::1]:${port}/orders`,
      `https://2130706433:${port}/orders`,
      `https://localhost:${port}/orders`,
      `https://loop.test:${port}/orders`,
    ]) {
      expect(await strict.deliverTo(url), url).toEqual({ outcomes: refused, reached: false });
    }
  });

  it('refuses private and link-local addresses and names even with the development switch', async () => {
    for (const url of [
      'https://10.0.0.7/orders',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:a00:7]/orders',
      'https://rail.internal.test/orders',
      'https://metadata.test/latest/meta-data',
    ]) {
      expect(await dev.deliverTo(url), url).toEqual({ outcomes: refused, reached: false });
    }
  });

  it('the development switch opens loopback: the tests’ own adapters are reached', async () => {
    const { outcomes, reached } = await dev.deliverTo(endpoint.url('/orders'));
    expect(outcomes).toEqual([expect.objectContaining({ type: 'delivery.accepted' })]);
    expect(reached).toBe(true);
  });
});
