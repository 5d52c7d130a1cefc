import { describe, expect, it } from 'vitest';
import type { FlowResult } from './flow.js';
import type { ScenarioResult } from './load.js';
import {
  baselineRate,
  formatCpuByProcess,
  formatFlow,
  formatIdleWaits,
  formatMemory,
  formatScenarios,
  formatTargets,
} from './report.js';
import { checkTargets } from './targets.js';

const MB = 1024 * 1024;

function scenario(overrides: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    name: 'payment create',
    measures: 'a create',
    requests: 10_000,
    successes: 10_000,
    requestsPerSecond: 1_000,
    latencyMs: { p50: 12, p90: 20, p99: 34, max: 80, mean: 13 },
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    statusCodes: { '201': 10_000 },
    elapsedSeconds: 10,
    cpuMsPerRequest: 0.75,
    ...overrides,
  };
}

function flow(overrides: Partial<FlowResult> = {}): FlowResult {
  return {
    name: 'full flow',
    measures: 'create to webhook',
    ratePerSecond: 50,
    started: 1_500,
    finished: 1_500,
    failedCalls: 0,
    unfinished: 0,
    achievedRate: 50,
    latencyMs: { p50: 40, p90: 90, p99: 200, max: 300, mean: 50 },
    cpuMsPerFlow: 30,
    cpuMsByProcess: {},
    cores: 2,
    sandboxPollMs: 1_000,
    ...overrides,
  };
}

/** The cells of each row of a printed table, after its header and rule. */
const rowsOf = (printed: string) =>
  printed
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s{2,}/));

describe('the idle memory table', () => {
  it('prints RSS, PSS and RSS after the load of each process, with their totals', () => {
    const printed = formatMemory({
      idleRss: { gateway: 86 * MB, payments: 70 * MB },
      startMs: { gateway: 2_100, payments: 1_800 },
      idlePss: { gateway: 45 * MB, payments: 29 * MB },
      afterLoadRss: { gateway: 96 * MB, payments: 115 * MB },
      idleCpuMsPerSecond: { gateway: 4.96, payments: 3.02 },
    });
    expect(printed.split('\n')[0]).toMatch(
      /process\s+idle RSS MB\s+idle PSS MB\s+idle RSS after load MB\s+idle CPU ms\/s\s+start ms/,
    );
    expect(rowsOf(printed)).toEqual([
      ['gateway', '86.0', '45.0', '96.0', '5.0', '2100'],
      ['payments', '70.0', '29.0', '115.0', '3.0', '1800'],
      ['total', '156.0', '74.0', '211.0', '8.0'],
    ]);
  });

  it('leaves a column empty, total included, where it was not read', () => {
    const printed = formatMemory({ idleRss: { 'system (all services)': 170 * MB } });
    const lines = printed.split('\n');
    expect(rowsOf(printed)).toEqual([
      ['system (all services)', '170.0'],
      ['total', '170.0'],
    ]);
    // Empty cells keep the columns aligned: every row is as wide as the header.
    expect(lines.map((line) => line.length)).toEqual(lines.map(() => lines[0]!.length));
  });
});

describe('the scenario table', () => {
  it('shows each rate as a share of the baseline and a failed scenario with its reason', () => {
    const printed = formatScenarios(
      [
        scenario({ latencyMs: { p50: 0, p90: 0, p99: 1, max: 2, mean: 0.1 } }),
        { name: 'retrieve', failed: 'fetch failed' },
      ],
      40_000,
    );
    const [created, failed] = rowsOf(printed);
    expect(created).toEqual(['payment create', '1000', '<1', '1', '0', '0', '0.750', '2.50 %']);
    expect(failed).toEqual(['retrieve', 'FAILED']);
    expect(printed).toContain('failed:\n  retrieve: fetch failed');
  });

  it('takes the baseline as the mean of its measured runs, and has none if both failed', () => {
    expect(
      baselineRate([scenario({ requestsPerSecond: 40_000 }), scenario({ requestsPerSecond: 30_000 })]),
    ).toBe(35_000);
    expect(baselineRate([scenario({ requestsPerSecond: 40_000 }), { name: 'after', failed: 'x' }])).toBe(
      40_000,
    );
    expect(baselineRate([{ name: 'before', failed: 'x' }])).toBeUndefined();
    expect(rowsOf(formatScenarios([scenario()], undefined))[0]!.at(-1)).toBe('n/a');
  });

  it('reports a flow that could not run, and the first failure of one that ran', () => {
    expect(formatFlow({ name: 'flow', failed: 'not run' })).toBe('full flow: FAILED: not run');
    const printed = formatFlow(flow({ finished: 1_499, unfinished: 1, firstFailure: 'pay answered 503' }));
    expect(printed).toContain('1499 of 1500 finished, 0 failed, 1 unfinished');
    expect(printed).toContain('p99 200');
    expect(printed).toContain('first failure: pay answered 503');
  });

  it("says where a flow's time went and how much of the machine the flows kept busy", () => {
    const spread = (p50: number, p90: number, p99: number) => ({ p50, p90, p99, max: p99, mean: p50 });
    const printed = formatFlow(
      flow({
        stagesMs: { create: spread(6, 14, 28), pay: spread(14, 27, 64), afterPay: spread(29, 58, 166) },
        cpuMsPerFlow: 32.8,
        cpuMsByProcess: { payments: 12_000, gateway: 6_000, 'nats-server': 9_000 },
      }),
    );
    expect(printed).toContain(
      'stages ms, p50 / p90 / p99: create answered 6 / 14 / 28, pay answered 14 / 27 / 64, pay to webhook 29 / 58 / 166',
    );
    expect(printed).toContain(
      "CPU per flow: 32.80 ms, 1.64 of this machine's 2 cores at 50/s (the busiest process, payments: 0.40)",
    );
  });
});

describe('the CPU of each process', () => {
  it("divides each process's CPU by the requests served, a column a scenario and one for the flow", () => {
    const printed = formatCpuByProcess(
      [
        scenario({
          name: 'payment create: POST /v1/payments',
          successes: 10_000,
          cpuMsPerRequest: 0.68,
          cpuMsByProcess: { gateway: 2_000, payments: 3_500, 'nats-server': 1_300 },
        }),
        { name: 'retrieve', failed: 'fetch failed' },
        scenario({
          name: 'settlement ingest: POST /v1/provider/webhooks/:id',
          successes: 4_000,
          cpuMsPerRequest: 0.3,
          cpuMsByProcess: { gateway: 480, 'provider-router': 520, 'nats-server': 200 },
        }),
      ],
      flow({ finished: 1_000, cpuMsPerFlow: 12, cpuMsByProcess: { gateway: 3_600, payments: 8_400 } }),
    );
    expect(printed.split('\n')[0]).toMatch(
      /^CPU ms a request or flow, by process\s+payment create\s+settlement ingest\s+full flow$/,
    );
    expect(rowsOf(printed)).toEqual([
      ['gateway', '0.200', '0.120', '3.600'],
      ['payments', '0.350', '-', '8.400'],
      ['nats-server', '0.130', '0.050', '-'],
      ['provider-router', '-', '0.130', '-'],
      ['total', '0.680', '0.300', '12.000'],
    ]);
  });

  it('prints nothing when no scenario measured its CPU', () => {
    expect(
      formatCpuByProcess([{ name: 'create', failed: 'not run' }], { name: 'flow', failed: 'not run' }),
    ).toBe('');
    expect(formatCpuByProcess([scenario({ successes: 0, cpuMsByProcess: { gateway: 10 } })])).toBe('');
  });
});

describe('the targets', () => {
  const idle = { gateway: 86 * MB, payments: 60.2 * MB, customers: 59.96 * MB };

  it('puts each figure beside its target and says which are met', () => {
    const checks = checkTargets(
      {
        mode: 'processes',
        scenarios: { create: scenario({ cpuMsPerRequest: 0.75, requestsPerSecond: 1_000 }) },
        flow: flow(),
        idleRssBytes: idle,
      },
      40_000,
    );
    const byFigure = Object.fromEntries(checks.map((c) => [c.figure, c]));
    expect(byFigure['create: CPU per request']).toMatchObject({
      measured: '0.750 ms',
      target: '<= 0.8 ms',
      met: true,
    });
    expect(byFigure['create: share of baseline']).toMatchObject({ measured: '2.50 %', met: true });
    expect(byFigure['retrieve: CPU per request']).toMatchObject({ measured: 'not measured', met: false });
    expect(byFigure['retrieve: share of baseline']).toMatchObject({ measured: 'not measured', met: false });
    expect(byFigure['full flow: p99']).toMatchObject({ measured: '200 ms', met: true });
    expect(byFigure['idle RSS: gateway']).toMatchObject({
      measured: '86.0 MB',
      target: '<= 60 MB',
      met: false,
    });
    expect(byFigure['idle RSS: payments']).toMatchObject({ measured: '60.2 MB', met: false });
    expect(byFigure['idle RSS: customers']).toMatchObject({ measured: '60.0 MB', met: true });
    expect(byFigure['idle RSS: whole system']).toMatchObject({ measured: '206.2 MB', met: true });
    expect(formatTargets(checks)).toMatch(/\n6 of 12 targets met$/);
  });

  it('misses the flow when a flow did not finish, and a share with no baseline', () => {
    const checks = checkTargets(
      {
        mode: 'in-process',
        scenarios: { settlement: scenario({ cpuMsPerRequest: 0.2 }) },
        flow: flow({ finished: 1_499, unfinished: 1 }),
        idleRssBytes: { 'system (all services)': 170 * MB },
      },
      undefined,
    );
    const byFigure = Object.fromEntries(checks.map((c) => [c.figure, c]));
    expect(byFigure['settlement: CPU per request']!.met).toBe(true);
    expect(byFigure['settlement: share of baseline']).toMatchObject({ measured: 'n/a', met: false });
    expect(byFigure['full flow: rate, all finished']).toMatchObject({
      measured: '50/s, 1499/1500 finished',
      met: false,
    });
    // In one process there is one RSS, checked against the whole system's target only.
    expect(checks.filter((c) => c.figure.startsWith('idle RSS'))).toHaveLength(1);
  });
});

describe('formatIdleWaits', () => {
  it('says when each idle reading was taken and names a service that had not given its memory back', () => {
    const printed = formatIdleWaits({
      idle: { waitedMs: 14_020, asked: true, stillLarge: {} },
      afterLoad: { waitedMs: 30_000, asked: true, stillLarge: { gateway: 16 * MB } },
    });
    expect(printed).toBe(
      [
        'idle RSS read 14.0 s after the set-up calls (every service quiet, its young generation given back)',
        'idle RSS after load read 30.0 s after the load (the young generation still large in gateway 16.0 MB)',
      ].join('\n'),
    );
    expect(
      formatIdleWaits({ idle: { waitedMs: 30_000, asked: true, stillLarge: { customers: undefined } } }),
    ).toBe(
      'idle RSS read 30.0 s after the set-up calls (the young generation still large in customers (no answer))',
    );
    expect(formatIdleWaits({ idle: { waitedMs: 12_000, asked: false, stillLarge: {} } })).toBe(
      'idle RSS read 12.0 s after the set-up calls (a fixed wait: in one process the kit does not watch idle memory)',
    );
  });
});
