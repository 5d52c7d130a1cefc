import { describe, expect, it } from 'vitest';
import { waitForIdleMemory, youngGenerationOf } from './idle.js';

const MB = 1024 * 1024;

describe('youngGenerationOf', () => {
  it('reads the young generation among the heap spaces of a /metrics answer', () => {
    const metrics = [
      '# HELP nodejs_heap_space_size_total_bytes Process heap space size total from Node.js in bytes.',
      '# TYPE nodejs_heap_space_size_total_bytes gauge',
      'nodejs_heap_space_size_total_bytes{space="read_only",service="gateway"} 0',
      'nodejs_heap_space_size_total_bytes{space="new_large_object",service="gateway"} 0',
      'nodejs_heap_space_size_total_bytes{space="new",service="gateway"} 16777216',
      'nodejs_heap_space_size_total_bytes{space="old",service="gateway"} 19300000',
      'nodejs_heap_space_size_used_bytes{space="new",service="gateway"} 120000',
    ].join('\n');
    expect(youngGenerationOf(metrics)).toBe(16 * MB);
    expect(youngGenerationOf('process_cpu_seconds_total 1')).toBeUndefined();
  });
});

describe('waitForIdleMemory', () => {
  const limits = { atLeastMs: 10, atMostMs: 400, everyMs: 20 };

  it('waits until every service has given its young generation back', async () => {
    let looks = 0;
    const wait = await waitForIdleMemory(async () => {
      looks += 1;
      return { gateway: looks < 3 ? 16 * MB : 1 * MB, payments: looks < 2 ? undefined : 1 * MB };
    }, limits);
    expect(looks).toBe(3);
    expect(wait.stillLarge).toEqual({});
  });

  it('gives up at its limit and names the services still holding a large young generation or not telling it', async () => {
    const wait = await waitForIdleMemory(
      async () => ({ gateway: 16 * MB, payments: 1 * MB, customers: undefined }),
      limits,
    );
    expect(wait.stillLarge).toEqual({ gateway: 16 * MB, customers: undefined });
    expect(wait.waitedMs).toBeLessThanOrEqual(limits.atMostMs + 50);
  });

  it('only waits its first stretch when the services cannot be asked', async () => {
    const wait = await waitForIdleMemory(undefined, limits);
    expect(wait).toEqual({ waitedMs: expect.any(Number), asked: false, stillLarge: {} });
  });
});
