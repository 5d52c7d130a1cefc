import { describe, expect, it } from 'vitest';
import { BENCH_RUNS, readConfig } from './config.js';

describe('BENCH_SCENARIOS', () => {
  it('runs every scenario and the flow when unset or empty', () => {
    expect(readConfig({}).runs).toEqual([...BENCH_RUNS]);
    expect(readConfig({ BENCH_SCENARIOS: ' ' }).runs).toEqual([...BENCH_RUNS]);
  });

  it('runs only the ones named', () => {
    expect(readConfig({ BENCH_SCENARIOS: 'flow, create' }).runs).toEqual(['flow', 'create']);
  });

  it('refuses a name it does not know, saying which it takes', () => {
    expect(() => readConfig({ BENCH_SCENARIOS: 'create,checkout' })).toThrow(
      'BENCH_SCENARIOS takes create, retrieve, settlement, flow, got "checkout"',
    );
  });
});
