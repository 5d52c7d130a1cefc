import { describe, expect, it } from 'vitest';
import { cpuMsEach, percentile, spreadOf } from './stats.js';

describe('percentiles', () => {
  it('reads the nearest rank of ascending values, and 0 of none', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([], 99)).toBe(0);
  });

  it('spreads values given in any order, to a tenth of a millisecond', () => {
    expect(spreadOf([30.04, 10, 20.26, 40, 5])).toEqual({ p50: 20.3, p90: 40, p99: 40, max: 40, mean: 21.1 });
    expect(spreadOf([])).toEqual({ p50: 0, p90: 0, p99: 0, max: 0, mean: 0 });
  });
});

describe('CPU per operation, by process', () => {
  it("divides each process's milliseconds by what was served, and gives 0 each when nothing was", () => {
    expect(cpuMsEach({ gateway: 30, 'nats-server': 6 }, 120)).toEqual({ gateway: 0.25, 'nats-server': 0.05 });
    expect(cpuMsEach({ gateway: 30 }, 0)).toEqual({ gateway: 0 });
  });
});
