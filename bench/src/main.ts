import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readConfig } from './config.js';
import { measure, type Scenario } from './load.js';
import { formatTable, writeResults, type ScenarioOutcome } from './report.js';
import {
  baselineScenario,
  createPaymentScenario,
  retrievePaymentScenario,
  settlementScenario,
} from './scenarios.js';
import { createPayments, probe } from './setup.js';
import type { TargetFailed, TargetReady } from './target.js';

const TARGET_START_TIMEOUT_MS = 120_000;

function startTarget(): Promise<{ child: ChildProcess; ready: TargetReady }> {
  const child = fork(fileURLToPath(new URL('./target.ts', import.meta.url)), [], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the system did not start within ${TARGET_START_TIMEOUT_MS} ms`));
    }, TARGET_START_TIMEOUT_MS);
    child.once('message', (message: TargetReady | TargetFailed) => {
      clearTimeout(timer);
      if (message.kind === 'ready') resolve({ child, ready: message });
      else reject(new Error(`the system failed to start:\n${message.error}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the system process exited with code ${code} before it was ready`));
    });
  });
}

function stopTarget(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.send('stop');
  });
}

/** Probes, then measures; a scenario whose route does not answer 2xx is reported as failed, not measured. */
async function runScenario(name: string, build: () => Promise<Scenario>): Promise<ScenarioOutcome> {
  const config = readConfig();
  try {
    const scenario = await build();
    await probe(scenario.url, scenario.nextRequest());
    process.stdout.write(
      `running ${scenario.name} (${config.warmupSeconds} s warm-up, ${config.durationSeconds} s measured)\n`,
    );
    return await measure(scenario, config);
  } catch (error) {
    const failed = error instanceof Error ? error.message : String(error);
    process.stdout.write(`skipped ${name}: ${failed}\n`);
    return { name, failed };
  }
}

async function main(): Promise<number> {
  const config = readConfig();
  const startedAt = new Date();
  process.stdout.write(`starting the system (${config.connections} connections per scenario)\n`);
  const { child, ready } = await startTarget();
  const outcomes: ScenarioOutcome[] = [];
  try {
    const { baseUrl, testSecretKey, provider } = ready;
    outcomes.push(
      await runScenario('baseline (before)', async () => baselineScenario(ready.baselineUrl, 'before')),
    );
    outcomes.push(
      await runScenario('payment create', async () => createPaymentScenario(baseUrl, testSecretKey)),
    );
    outcomes.push(
      await runScenario('payment retrieve', async () =>
        retrievePaymentScenario(
          baseUrl,
          testSecretKey,
          await createPayments(baseUrl, testSecretKey, config.retrieveTokens),
        ),
      ),
    );
    outcomes.push(
      await runScenario('settlement ingest', async () => {
        if ('error' in provider) throw new Error(`creating the provider: ${provider.error}`);
        return settlementScenario(baseUrl, provider.id, provider.signingSecret);
      }),
    );
    outcomes.push(
      await runScenario('baseline (after)', async () => baselineScenario(ready.baselineUrl, 'after')),
    );
  } finally {
    await stopTarget(child);
  }
  process.stdout.write(`\n${formatTable(outcomes)}\n\n`);
  for (const outcome of outcomes)
    if ('requests' in outcome) process.stdout.write(`${outcome.name}: ${outcome.measures}\n`);
  const file = writeResults(
    fileURLToPath(new URL('../results', import.meta.url)),
    config,
    outcomes,
    startedAt,
  );
  process.stdout.write(`\nresults: ${file}\n`);
  return outcomes.some((o) => 'failed' in o) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
