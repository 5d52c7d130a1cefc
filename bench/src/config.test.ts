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

describe('BENCH_MODES', () => {
  it('measures both shapes, in-process first, unless told', () => {
    expect(readConfig({}).modes).toEqual(['in-process', 'processes']);
    expect(readConfig({ BENCH_MODES: ' processes ' }).modes).toEqual(['processes']);
  });

  it('refuses a shape it does not know, saying which it takes', () => {
    expect(() => readConfig({ BENCH_MODES: 'in-process,cluster' })).toThrow(
      'BENCH_MODES takes in-process and/or processes, got "cluster"',
    );
  });
});

describe('BENCH_LOG_LEVEL', () => {
  it('keeps the services silent unless a level is named', () => {
    expect(readConfig({}).logLevel).toBe('silent');
    expect(readConfig({ BENCH_LOG_LEVEL: 'warn' }).logLevel).toBe('warn');
  });

  it('refuses a level pino does not know', () => {
    expect(() => readConfig({ BENCH_LOG_LEVEL: 'loud' })).toThrow(
      'BENCH_LOG_LEVEL takes silent, fatal, error, warn, info, debug, trace, got "loud"',
    );
  });
});
