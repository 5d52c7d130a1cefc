import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../load.js';
import { deepestPage } from './port-queries.js';
import {
  checkScale,
  createFigures,
  formatCreateCpu,
  formatScale,
  type Latency,
  type SizeResult,
} from './targets.js';

const latency = (p99: number, failed = 0): Latency => ({ p50: p99 / 2, p99, count: 10, failed });

function result(size: number, p99: { first: number; deep: number; cursor: number }, failed = 0): SizeResult {
  const port = { p50: 1, p99: size === 10_000 ? 2 : 9 };
  return {
    size,
    seedDocsPerSecond: 1,
    startMs: {},
    idleRssBytes: { payments: 70 * 1024 ** 2 },
    peakRssBytes: { payments: 140 * 1024 ** 2 },
    deepPage: deepestPage(size),
    createPerSecond: 1,
    createP99Ms: 1,
    createFailed: 0,
    createCpuMs: { gateway: 0.2, payments: size / 100_000 },
    listFirst: latency(p99.first),
    listDeep: latency(p99.deep),
    listCursor: latency(p99.cursor, failed),
    searchFirst: latency(1),
    searchDeep: latency(1),
    searchCursor: latency(1),
    customersList: latency(1),
    customersSearch: latency(1),
    customersStats: latency(1),
    port: { listFirst: port, listDeep: port, searchFirst: port, searchDeep: port },
  };
}

describe('the scale bench', () => {
  it('reads the deepest page a numbered list serves: within the capped total, or the data set', () => {
    expect(deepestPage(1_000)).toBe(50);
    expect(deepestPage(10_000)).toBe(500);
    expect(deepestPage(1_000_000)).toBe(500);
    expect(deepestPage(5)).toBe(1);
  });

  it('holds every list read at a size to twice its value at 10,000, a cursor read included', () => {
    const checks = checkScale([
      result(10_000, { first: 10, deep: 12, cursor: 10 }),
      result(1_000_000, { first: 19, deep: 30, cursor: 12 }),
    ]);
    const at = (figure: string) =>
      checks.find((check) => check.figure.startsWith('1,000,000: list') && check.figure.endsWith(figure));
    expect(at('API, first page')).toMatchObject({ met: true, target: '<= 20.0 ms (2x 10)' });
    expect(at('API, deepest numbered page')).toMatchObject({ met: false, measured: '30 ms' });
    expect(at('API, cursor at the middle')).toMatchObject({ met: true });
    // At the port the median is held to it: its p99 is the odd pause of the bench's process.
    expect(at('store port, first page')).toMatchObject({
      met: true,
      figure: '1,000,000: list p50, store port, first page',
    });
    expect(checks.find((check) => check.figure.startsWith('1,000,000: largest service RSS'))).toMatchObject({
      met: true,
      measured: '140 MB',
    });
  });

  it('counts a read with failed answers as missed, whatever its p99', () => {
    const checks = checkScale([
      result(10_000, { first: 10, deep: 10, cursor: 10 }),
      result(100_000, { first: 10, deep: 10, cursor: 10 }, 2),
    ]);
    expect(
      checks.find((check) => check.figure === '100,000: list p99, API, cursor at the middle'),
    ).toMatchObject({
      met: false,
      measured: '10 ms, 2 failed',
    });
  });

  it('shows beside the create rate how many creates failed, whose cost the others carry', () => {
    const failing = {
      ...result(100_000, { first: 1, deep: 1, cursor: 1 }),
      createPerSecond: 740,
      createFailed: 8_012,
    };
    const rows = formatScale([result(10_000, { first: 1, deep: 1, cursor: 1 }), failing])
      .split('\n')
      .map((line) => line.trim().split(/\s{2,}/));
    const column = rows[0]!.indexOf('create/s');
    expect(rows.find((row) => row[0] === '10,000')?.[column]).toBe('1');
    expect(rows.find((row) => row[0] === '100,000')?.[column]).toBe('740 (8012 failed)');
  });

  it('counts every create not answered 2xx as failed, timeouts among the errors, and spreads CPU over the 2xx only', () => {
    const create: ScenarioResult = {
      name: 'create',
      measures: '',
      requests: 1_005,
      successes: 1_000,
      requestsPerSecond: 200,
      latencyMs: { p50: 30, p90: 50, p99: 70, max: 90, mean: 33 },
      errors: 3,
      timeouts: 2,
      non2xx: 2,
      statusCodes: { '201': 1_000, '429': 2 },
      elapsedSeconds: 5,
      cpuMsByProcess: { gateway: 250, payments: 600 },
    };
    expect(createFigures(create)).toEqual({
      createPerSecond: 200,
      createP99Ms: 70,
      createFailed: 5,
      createCpuMs: { gateway: 0.25, payments: 0.6 },
    });
    expect(createFigures({ ...create, successes: 0 }).createCpuMs).toEqual({ gateway: 0, payments: 0 });
  });

  it("shows where a create's CPU goes at each size, process by process, with the total", () => {
    const text = formatCreateCpu([
      result(10_000, { first: 1, deep: 1, cursor: 1 }),
      result(1_000_000, { first: 1, deep: 1, cursor: 1 }),
    ]);
    const rows = text.split('\n').map((line) => line.trim().split(/\s{2,}/));
    expect(rows[0]).toEqual(['CPU ms a create, by process', '10,000', '1,000,000']);
    expect(rows.find((row) => row[0] === 'payments')).toEqual(['payments', '0.100', '10.000']);
    expect(rows.find((row) => row[0] === 'total')).toEqual(['total', '0.300', '10.200']);
  });
});
