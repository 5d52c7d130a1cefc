import { fileURLToPath } from 'node:url';
import type { BaselineReady } from './baseline.js';
import { readConfig, type BenchConfig, type Mode } from './config.js';
import { runFlow } from './flow.js';
import { measure, type Scenario } from './load.js';
import { waitForIdleMemory, type IdleWait } from './idle.js';
import { idleCpuMsPerSecond, pssBytes, rssBytes, withNatsServer } from './proc.js';
import { startChild, stopChild } from './processes.js';
import {
  baselineRate,
  formatCpuByProcess,
  formatFlow,
  formatIdleWaits,
  formatMemory,
  formatScenarios,
  formatTargets,
  isFailed,
  writeResults,
  type ScenarioFailure,
  type ScenarioOutcome,
} from './report.js';
import {
  baselineScenario,
  createPaymentScenario,
  retrievePaymentScenario,
  settlementScenario,
} from './scenarios.js';
import { createAccounts, createPayments, probe } from './setup.js';
import { benchEnv, buildServices, startInProcess, startProcesses, type SystemUnderTest } from './systems.js';
import { checkTargets, type ModeResults, type ScenarioKey } from './targets.js';

const MODE_TITLES: Record<Mode, string> = {
  'in-process': 'in-process: every service in one process, as the end-to-end tests run them',
  processes: 'processes: every service in its own process from its build, as `pnpm start` runs them',
};
/** Long enough to span the services' one-second timers several times over. */
const IDLE_CPU_WINDOW_MS = 5_000;
const print = (text: string) => process.stdout.write(`${text}\n`);
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Probes, then measures; a scenario whose route does not answer 2xx is reported as failed, not measured. */
async function runScenario(
  config: BenchConfig,
  name: string,
  build: () => Promise<Scenario>,
  cpuPids: Record<string, number> = {},
): Promise<ScenarioOutcome> {
  try {
    const scenario = await build();
    await probe(scenario.url, scenario.nextRequest());
    print(
      `running ${scenario.name} (${config.warmupSeconds} s warm-up, ${config.durationSeconds} s measured)`,
    );
    return await measure(scenario, config, cpuPids);
  } catch (error) {
    print(`skipped ${name}: ${message(error)}`);
    return { name, failed: message(error) };
  }
}

type ModeRun = ModeResults & {
  outcomes: ScenarioOutcome[];
  flowOutcome: ScenarioFailure | undefined;
  startMs?: Record<string, number>;
  /** Informational: the targets are on RSS (formatMemory says why PSS is shown too). */
  idlePssBytes: Record<string, number>;
  /** Informational: what each quiet service's timers and polls cost, read after idle RSS. */
  idleCpuMsPerSecond: Record<string, number>;
  /** Informational: idle again after the load, which shows what the load left behind. */
  afterLoadRssBytes?: Record<string, number>;
  /** How long each idle reading waited for the services to give back what they grew. */
  idleWaits: { idle: IdleWait; afterLoad?: IdleWait };
};

/** One reading of each process, by its name. */
const readEach = (pids: Record<string, number>, read: (pid: number) => number | undefined) =>
  Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, read(pid) ?? 0]));

async function runMode(mode: Mode, config: BenchConfig): Promise<ModeRun> {
  print(`\n== ${MODE_TITLES[mode]}`);
  const env = benchEnv(config.sandboxPollMs, config.logLevel);
  const system: SystemUnderTest & { startMs?: Record<string, number> } =
    mode === 'in-process' ? await startInProcess(env) : await startProcesses({ env });
  try {
    const { baseUrl } = system;
    const accounts = await createAccounts(baseUrl, system.adminToken);
    const idleWait = await waitForIdleMemory(system.youngGenerations);
    const idleRssBytes = readEach(system.servicePids, rssBytes);
    const idlePssBytes = readEach(system.servicePids, pssBytes);
    const idleCpu = await idleCpuMsPerSecond(system.servicePids, IDLE_CPU_WINDOW_MS);
    const cpuPids = withNatsServer(system.servicePids);
    const key = accounts.testSecretKey;
    const scenarios: Record<ScenarioKey, () => Promise<Scenario>> = {
      create: async () => createPaymentScenario(baseUrl, key),
      retrieve: async () =>
        retrievePaymentScenario(baseUrl, key, await createPayments(baseUrl, key, config.retrieveTokens)),
      settlement: async () => {
        if ('error' in accounts.provider)
          throw new Error(`creating the provider: ${accounts.provider.error}`);
        return settlementScenario(baseUrl, accounts.provider.id, accounts.provider.signingSecret);
      },
    };
    const results: ModeRun = {
      mode,
      scenarios: {},
      idleRssBytes,
      idlePssBytes,
      idleCpuMsPerSecond: idleCpu,
      outcomes: [],
      flowOutcome: undefined,
      startMs: system.startMs,
      idleWaits: { idle: idleWait },
    };
    for (const [name, build] of Object.entries(scenarios) as [ScenarioKey, () => Promise<Scenario>][]) {
      if (!config.runs.includes(name)) continue;
      const outcome = await runScenario(config, name, build, cpuPids);
      results.outcomes.push(outcome);
      if (!isFailed(outcome)) results.scenarios[name] = outcome;
    }
    if (config.runs.includes('flow')) {
      print(`running the full flow (${config.flowRate}/s for ${config.flowSeconds} s)`);
      try {
        results.flow = await runFlow(baseUrl, key, config, cpuPids);
      } catch (error) {
        results.flowOutcome = { name: 'full flow', failed: message(error) };
      }
    }
    results.idleWaits.afterLoad = await waitForIdleMemory(system.youngGenerations);
    results.afterLoadRssBytes = readEach(system.servicePids, rssBytes);
    return results;
  } finally {
    await system.stop();
  }
}

async function main(): Promise<number> {
  const config = readConfig();
  const startedAt = new Date();
  if (config.modes.includes('processes') && !config.skipBuild) {
    print('building the services (as pnpm start does)');
    buildServices();
  }
  const baseline = await startChild<BaselineReady>('./baseline.ts');
  // The baseline's own CPU per request is this host's yardstick: a create's CPU read against it.
  const baselinePid: Record<string, number> = baseline.child.pid ? { baseline: baseline.child.pid } : {};
  const runs: ModeRun[] = [];
  const baselines: ScenarioOutcome[] = [];
  try {
    const bare = async (when: 'before' | 'after') =>
      baselines.push(
        await runScenario(
          config,
          `baseline (${when})`,
          async () => baselineScenario(baseline.ready.url, when),
          baselinePid,
        ),
      );
    await bare('before');
    for (const mode of config.modes) runs.push(await runMode(mode, config));
    await bare('after');
  } finally {
    await stopChild(baseline.child);
  }
  const rate = baselineRate(baselines);
  print(`\n${formatScenarios(baselines, rate)}`);
  print(`baseline mean: ${rate?.toFixed(0) ?? 'n/a'} 2xx/s (each share below is of this mean)`);
  const checks = runs.flatMap((run) => checkTargets(run, rate));
  for (const run of runs) {
    print(`\n== ${MODE_TITLES[run.mode]}\n${formatScenarios(run.outcomes, rate)}`);
    const flow = run.flow ?? run.flowOutcome ?? { name: 'full flow', failed: 'not run' };
    print(formatFlow(flow));
    const byProcess = formatCpuByProcess(run.outcomes, flow);
    if (byProcess) print(byProcess);
    print(
      formatMemory({
        idleRss: run.idleRssBytes,
        startMs: run.startMs,
        idlePss: run.idlePssBytes,
        afterLoadRss: run.afterLoadRssBytes,
        idleCpuMsPerSecond: run.idleCpuMsPerSecond,
      }),
    );
    print(formatIdleWaits(run.idleWaits));
  }
  print(`\n${formatTargets(checks)}`);
  const file = writeResults(fileURLToPath(new URL('../results', import.meta.url)), 'bench', startedAt, {
    config,
    baseline: { meanRequestsPerSecond: rate, runs: baselines },
    modes: runs,
    targets: checks,
  });
  print(`\nresults: ${file}`);
  const failed = baselines.some(isFailed) || runs.some((r) => r.outcomes.some(isFailed) || r.flowOutcome);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
