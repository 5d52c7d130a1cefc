import { fileURLToPath } from 'node:url';
import type { BaselineReady } from './baseline.js';
import { readConfig } from './config.js';
import { measure, type Scenario } from './load.js';
import { startChild, stopChild } from './processes.js';
import { formatTable, writeResults, type ScenarioOutcome } from './report.js';
import {
  baselineScenario,
  createPaymentScenario,
  retrievePaymentScenario,
  settlementScenario,
} from './scenarios.js';
import { createPayments, probe } from './setup.js';
import type { TargetReady } from './target.js';

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
  const baseline = await startChild<BaselineReady>('./baseline.ts');
  const target = await startChild<TargetReady>('./target.ts').catch(async (error: unknown) => {
    await stopChild(baseline.child);
    throw error;
  });
  const ready = { ...target.ready, baselineUrl: baseline.ready.url };
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
    await Promise.all([stopChild(target.child), stopChild(baseline.child)]);
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
